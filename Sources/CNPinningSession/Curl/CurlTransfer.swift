#if canImport(CCurl)
  internal import CCurl
  internal import COpenSSL
  internal import CNPinningShims
  import CNPinning
  import Foundation

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Everything a transfer needs from its session, captured when the request starts.
  struct TransferSettings: Sendable {
    let manager: CNPinningManager?
    let unpinnedHosts: CNUnpinnedHostPolicy
    let trustStore: TrustStore
    let configuration: CNPinnedSessionConfiguration
    let observer: (@Sendable (CNConnectionEvent) -> Void)?
    /// Nil for the session that uploads reports: its own failures are not reported.
    let uploader: ReportUploader?
    /// The transport-security requirements for the host; nil when the policy is off.
    let transportSecurity: CNTransportSecurityException?
    /// Whether those requirements are an exception configured for the host.
    let transportSecurityException: Bool

    /// The lowest TLS version a handshake may use: the session's, unless a transport-security
    /// exception for the host sets its own.
    var minimumTLSVersion: CNTLSVersion {
      guard transportSecurityException, let transportSecurity else { return configuration.minimumTLSVersion }
      return transportSecurity.minimumTLSVersion
    }
  }

  /// One libcurl easy handle carrying one HTTP exchange, with the TLS hooks that verify trust,
  /// the host name and the pins of every connection it uses.
  ///
  /// Created on the caller's thread; from `CurlMultiLoop.perform` on, used only by the loop thread.
  final class CurlTransfer: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let url: URL
    let host: String
    let port: Int
    let isHTTPS: Bool
    let timeout: TimeInterval
    private let settings: TransferSettings
    private let hostIsIPAddress: Bool
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var head = ResponseHead()
    private var body = Data()
    private let bodyFile: FileHandle?
    /// Set when this transfer's own handshake was judged (the verify callback ran for it).
    private var handshakeJudged = false
    /// The certificates the server sent, recorded only for an observer.
    private var presentedChain: [CNCertificate] = []
    /// The protocol version of the server's ServerHello, recorded for transport-security errors.
    private var serverHelloVersion: Int?
    /// Whether the server answered with a protocol_version alert (it shares no version with us).
    private var serverRefusedVersions = false
    /// Why the connection was refused, recorded by the TLS hooks.
    private(set) var rejection: CNPinnedSessionError?
    /// Called exactly once by the loop with the outcome.
    var completion: (@Sendable (Result<TransferOutcome, CNPinnedSessionError>) -> Void)?
    /// Set by `CurlMultiLoop.cancel`, read by the loop.
    let cancellation = Locked(false)

    /// Whether the transfer stops after the TLS handshake (a probe), sending no request.
    let connectOnly: Bool

    init(request: URLRequest, settings: TransferSettings, bodyFile: FileHandle? = nil, connectOnly: Bool = false)
      throws(CNPinnedSessionError)
    {
      guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
        let rawHost = url.host, !rawHost.isEmpty
      else { throw .invalidURL(request.url?.absoluteString ?? "") }
      guard let handle = curl_easy_init() else { throw .transferFailed(host: rawHost, reason: "curl_easy_init failed") }
      self.handle = handle
      self.url = url
      self.isHTTPS = scheme == "https"
      self.port = url.port ?? (isHTTPS ? 443 : 80)
      let bare = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
      self.host = bare.lowercased()
      self.hostIsIPAddress = bare.contains(":") || bare.allSatisfy { $0.isNumber || $0 == "." }
      self.settings = settings
      self.bodyFile = bodyFile
      self.connectOnly = connectOnly
      let requested = request.timeoutInterval > 0 ? request.timeoutInterval : .infinity
      self.timeout = min(requested, settings.configuration.timeoutIntervalForRequest)
      errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
      try configure(request)
    }

    deinit {
      curl_easy_cleanup(handle)
      curl_slist_free_all(headerList)
      curl_slist_free_all(resolveList)
      errorBuffer.deallocate()
    }

    // MARK: - Options

    private func configure(_ request: URLRequest) throws(CNPinnedSessionError) {
      let context = Unmanaged.passUnretained(self).toOpaque()
      let configuration = settings.configuration
      try set(CURLOPT_URL, url.absoluteString)
      try set(CURLOPT_PROTOCOLS_STR, "http,https")
      try set(CURLOPT_NOSIGNAL, 1)
      try set(CURLOPT_PROXY, "")
      try set(CURLOPT_FOLLOWLOCATION, 0)
      try set(CURLOPT_ACCEPT_ENCODING, "")
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
      try check(cnp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, bodyCallback))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
      try check(cnp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
      try check(cnp_curl_setopt_prereq_callback(handle, prerequestCallback))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_PREREQDATA, context))

      // TLS: OpenSSL verifies chain and host name against the session's store; the hooks add pins.
      try set(CURLOPT_SSL_VERIFYPEER, 1)
      try set(CURLOPT_SSL_VERIFYHOST, 2)
      let versions: [CNTLSVersion: Int] = [
        .tls10: Int(CURL_SSLVERSION_TLSv1_0), .tls11: Int(CURL_SSLVERSION_TLSv1_1), .tls12: Int(CURL_SSLVERSION_TLSv1_2),
        .tls13: Int(CURL_SSLVERSION_TLSv1_3),
      ]
      try set(CURLOPT_SSLVERSION, versions[settings.minimumTLSVersion]!)
      try set(CURLOPT_SSL_SESSIONID_CACHE, 0)
      // The session's own store replaces curl's in `configureTLS`; without these libcurl would
      // parse the whole system bundle for every connection only to have it thrown away.
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_CAINFO, nil))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_CAPATH, nil))
      try check(cnp_curl_setopt_ssl_ctx_callback(handle, tlsContextCallback))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_SSL_CTX_DATA, context))

      // Timeouts: connecting (TLS included) and stalls use the request timeout; the whole exchange
      // the resource timeout.
      // Timeouts beyond a year are treated as a year (and non-positive ones as none), which also
      // keeps the conversions to integers from overflowing.
      let year: TimeInterval = 365 * 24 * 3600
      if timeout.isFinite, timeout > 0 {
        let seconds = min(timeout, year)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(seconds * 1000))
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, max(1, Int(seconds.rounded(.up))))
      }
      let resource = configuration.timeoutIntervalForResource
      if resource.isFinite, resource > 0 {
        try set(CURLOPT_TIMEOUT_MS, Int(min(resource, year) * 1000))
      }

      for override in configuration.resolve {
        resolveList = curl_slist_append(resolveList, "\(override.host):\(override.port):\(override.address)")
      }
      if let resolveList { try check(cnp_curl_setopt_pointer(handle, CURLOPT_RESOLVE, resolveList)) }

      if connectOnly {
        try set(CURLOPT_CONNECT_ONLY, 1)
        try set(CURLOPT_FORBID_REUSE, 1)
        try set(CURLOPT_FRESH_CONNECT, 1)
        return
      }
      try configureMethodAndBody(request)
      try configureHeaders(request)
    }

    private func configureMethodAndBody(_ request: URLRequest) throws(CNPinnedSessionError) {
      let method = request.httpMethod ?? "GET"
      guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenCharacter) else {
        throw .invalidArgument("\"\(method)\" is not a valid HTTP method")
      }
      guard request.httpBodyStream == nil else { throw .unsupportedRequest("httpBodyStream (set httpBody instead)") }
      let body = request.httpBody
      switch method {
      case "GET" where body == nil:
        try set(CURLOPT_HTTPGET, 1)
      case "HEAD":
        try set(CURLOPT_NOBODY, 1)
      default:
        if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, method) }
        try set(CURLOPT_POST, 1)
        let bytes = body ?? Data()
        try check(cnp_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
        // COPYPOSTFIELDS copies the bytes, so the Data need not outlive this call.
        let copied = bytes.withUnsafeBytes { raw in
          cnp_curl_setopt_pointer(
            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
        }
        try check(copied)
      }
    }

    private func configureHeaders(_ request: URLRequest) throws(CNPinnedSessionError) {
      var fields = settings.configuration.httpAdditionalHeaders
      for (name, value) in request.allHTTPHeaderFields ?? [:] {
        for existing in fields.keys where existing.caseInsensitiveCompare(name) == .orderedSame {
          fields[existing] = nil
        }
        fields[name] = value
      }
      if !fields.keys.contains(where: { $0.caseInsensitiveCompare("Expect") == .orderedSame }) {
        fields["Expect"] = ""
      }
      for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter),
          !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
        else { throw .invalidArgument("the header \"\(name)\" has an invalid name or value") }
        // "Name;" sends an empty header; "Name:" would remove curl's own.
        let line = value.isEmpty && name.caseInsensitiveCompare("Expect") != .orderedSame ? "\(name);" : "\(name): \(value)"
        headerList = curl_slist_append(headerList, line)
      }
      if let headerList { try check(cnp_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)) }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
      default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
      }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(CNPinnedSessionError) {
      try check(cnp_curl_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(CNPinnedSessionError) {
      try check(cnp_curl_setopt_string(handle, option, value))
    }

    private func check(_ code: CURLcode) throws(CNPinnedSessionError) {
      guard code == CURLE_OK else {
        throw .transferFailed(host: host, reason: "libcurl refused an option: \(String(cString: curl_easy_strerror(code)))")
      }
    }

    // MARK: - Body and headers (loop thread)

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
      if let bodyFile {
        do {
          try bodyFile.write(contentsOf: bytes)
        } catch {
          return 0
        }
      } else {
        body.append(contentsOf: bytes)
      }
      return bytes.count
    }

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
      head.consume(line: String(decoding: bytes, as: UTF8.self))
      return bytes.count
    }

    // MARK: - TLS hooks (loop thread)

    /// Points a new TLS context at the session's trust store and host name, and routes chain
    /// verification through `verifyChain`.
    fileprivate func configureTLS(_ context: OpaquePointer) -> Bool {
      SSL_CTX_set1_cert_store(context, settings.trustStore.store)
      let legacy = settings.minimumTLSVersion < .tls12 || settings.transportSecurity?.allowsWeakCertificates == true
      // Hosts excepted from transport security may need OpenSSL's legacy algorithms; the rules
      // that still apply are checked in `verifyChain`.
      if legacy { SSL_CTX_set_security_level(context, 0) }
      guard cnp_SSL_CTX_set_min_proto_version(context, Int32(settings.minimumTLSVersion.rawValue)) == 1,
        let parameters = SSL_CTX_get0_param(context)
      else { return false }
      if settings.transportSecurity != nil {
        cnp_SSL_CTX_set_message_callback(context, messageCallback, Unmanaged.passUnretained(self).toOpaque())
      }
      cnp_SSL_CTX_disable_session_resumption(context)
      X509_VERIFY_PARAM_set_hostflags(
        parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT))
      let named = hostIsIPAddress ? X509_VERIFY_PARAM_set1_ip_asc(parameters, host) : X509_VERIFY_PARAM_set1_host(parameters, host, 0)
      guard named == 1 else { return false }
      SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
      SSL_CTX_set_cert_verify_callback(context, certificateVerifyCallback, Unmanaged.passUnretained(self).toOpaque())
      return true
    }

    /// Runs OpenSSL's verification (chain, dates, host name), then the pins on the verified chain.
    fileprivate func verifyChain(_ storeContext: OpaquePointer) -> Bool {
      handshakeJudged = true
      if settings.observer != nil {
        presentedChain = Self.certificates(X509_STORE_CTX_get0_untrusted(storeContext)) ?? []
      }
      if let requirements = settings.transportSecurity, let violation = negotiationViolation(storeContext, requirements) {
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        rejection = .transportSecurity(violation)
        report(chain: [], pinning: nil, reused: false)
        return false
      }
      guard X509_verify_cert(storeContext) == 1 else {
        let code = X509_STORE_CTX_get_error(storeContext)
        rejection = weakCertificateViolation(code, storeContext).map { .transportSecurity($0) } ?? Self.trustError(code, host: host)
        report(chain: [], pinning: nil, reused: false)
        return false
      }
      let stack = X509_STORE_CTX_get0_chain(storeContext)
      var verified: [CNCertificate]?
      if settings.transportSecurity?.allowsWeakCertificates == false {
        verified = Self.certificates(stack)
        if let violation = certificateViolation(verified ?? []) {
          X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
          rejection = .transportSecurity(violation)
          report(chain: verified ?? [], pinning: nil, reused: false)
          return false
        }
      }
      guard judge({ verified ?? Self.certificates(stack) }, reused: false) else {
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        return false
      }
      return true
    }

    // MARK: - Transport security (loop thread)

    /// The negotiated version and cipher, judged before the certificates.
    private func negotiationViolation(_ storeContext: OpaquePointer, _ requirements: CNTransportSecurityException)
      -> CNTransportSecurityViolation?
    {
      guard let ssl = cnp_X509_STORE_CTX_get_ssl(storeContext) else {
        return .protocolVersion(host: host, required: requirements.minimumTLSVersion.description, found: "an unknown version")
      }
      let version = Int(SSL_version(ssl))
      if version < requirements.minimumTLSVersion.rawValue {
        return .protocolVersion(host: host, required: requirements.minimumTLSVersion.description, found: CNTLSVersion.name(version))
      }
      guard requirements.requiresForwardSecrecy, version < CNTLSVersion.tls13.rawValue else { return nil }
      guard let cipher = SSL_get_pending_cipher(ssl) ?? SSL_get_current_cipher(ssl) else {
        return .cipherSuite(host: host, found: "an unknown cipher")
      }
      let name = String(cString: SSL_CIPHER_get_name(cipher))
      let authenticatedEncryption = SSL_CIPHER_is_aead(cipher) == 1 && (name.contains("GCM") || name.contains("CHACHA20"))
      let forwardSecret = SSL_CIPHER_get_kx_nid(cipher) == NID_kx_ecdhe
      return authenticatedEncryption && forwardSecret ? nil : .cipherSuite(host: host, found: name)
    }

    /// OpenSSL's own refusals of weak keys and hashes, expressed as transport-security violations.
    private func weakCertificateViolation(_ code: Int32, _ storeContext: OpaquePointer) -> CNTransportSecurityViolation? {
      guard settings.transportSecurity?.allowsWeakCertificates == false else { return nil }
      let certificate = X509_STORE_CTX_get_current_cert(storeContext).flatMap { Self.certificate($0) }
      switch code {
      case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL:
        let subject = code == X509_V_ERR_EE_KEY_TOO_SMALL ? X509_STORE_CTX_get0_cert(storeContext).flatMap { Self.certificate($0) } : certificate
        return .leafKey(host: host, found: subject?.publicKeyKind.description ?? "a key that is too small")
      case X509_V_ERR_CA_MD_TOO_WEAK:
        return .signatureHash(
          host: host, certificate: "\"\(certificate?.commonName ?? "a certificate")\"",
          found: certificate?.signatureHash.description ?? "a weak hash")
      default:
        return nil
      }
    }

    /// The verified chain judged against the key-size and signature-hash rules.
    private func certificateViolation(_ chain: [CNCertificate]) -> CNTransportSecurityViolation? {
      guard let leaf = chain.first else { return .leafKey(host: host, found: "no certificate") }
      switch leaf.publicKeyKind {
      case .rsa(let bits) where bits >= 2048: break
      case .ec(let curve) where curve.bits >= 256: break
      case .ed25519: break
      case let kind: return .leafKey(host: host, found: kind.description)
      }
      for certificate in chain.dropLast() where !certificate.signatureHash.isSHA256OrStronger {
        return .signatureHash(
          host: host, certificate: "\"\(certificate.commonName ?? "a certificate")\"", found: certificate.signatureHash.description)
      }
      return nil
    }

    fileprivate func recordServerHello(version: Int) {
      serverHelloVersion = version
    }

    fileprivate func recordProtocolVersionAlert() {
      serverRefusedVersions = true
    }

    /// The transport-security reading of a failed handshake: a server that chose, or could only
    /// offer, a version below the policy's minimum.
    private func versionViolation() -> CNTransportSecurityViolation? {
      guard let requirements = settings.transportSecurity else { return nil }
      let required = requirements.minimumTLSVersion
      if let version = serverHelloVersion, version < required.rawValue {
        return .protocolVersion(host: host, required: required.description, found: CNTLSVersion.name(version))
      }
      // We offered every version the policy allows; the server wanted none of them.
      if serverRefusedVersions, settings.minimumTLSVersion <= required {
        return .protocolVersion(host: host, required: required.description, found: "only versions below \(required)")
      }
      return nil
    }

    /// Judges the connection once more just before the request is sent: a reused connection was
    /// verified for an earlier request, perhaps under other pins.
    fileprivate func checkBeforeRequest() -> Bool {
      if handshakeJudged { return rejection == nil }
      guard isHTTPS else { return true }
      guard let ssl = cnp_curl_ssl_pointer(handle), SSL_get_verify_result(ssl) == X509_V_OK else {
        rejection = .untrustedChain(host: host, reason: "the reused connection was not verified")
        return false
      }
      return judge({ Self.certificates(SSL_get0_verified_chain(ssl)) }, reused: true)
    }

    /// Applies the pins (and the unpinned-host policy) to a verified chain. The chain is read only
    /// when pins or an observer need it.
    private func judge(_ readChain: () -> [CNCertificate]?, reused: Bool) -> Bool {
      var chain: [CNCertificate] = []
      if settings.observer != nil || settings.manager?.configuration(for: host) != nil {
        guard let read = readChain() else {
          rejection = .untrustedChain(host: host, reason: "the verified chain cannot be read")
          report(chain: [], pinning: nil, reused: reused)
          return false
        }
        chain = read
      }
      let pinning = evaluate(chain)
      switch pinning {
      case .accepted, .reportOnly: break
      case .notPinned: if settings.unpinnedHosts == .deny { rejection = .hostNotPinned(host: host) }
      case .rejected(let failure): rejection = .pinMismatch(failure)
      }
      report(chain: chain, pinning: pinning, reused: reused)
      return rejection == nil
    }

    /// The manager's verdict; failures are reported and, where configured, uploaded (without
    /// waiting for the upload).
    private func evaluate(_ chain: [CNCertificate]) -> CNPinningResult {
      guard let manager = settings.manager else { return .notPinned }
      guard let uploader = settings.uploader else { return manager.evaluate(host: host, chain: chain) }
      let (result, report) = manager.evaluateAndReport(host: host, port: port, chain: chain)
      if let report, let target = manager.configuration(for: host)?.configuration.reportURI, manager.shouldUpload(report) {
        uploader.upload(report, to: target)
      }
      return result
    }

    private func report(chain: [CNCertificate], pinning: CNPinningResult?, reused: Bool) {
      settings.observer?(
        CNConnectionEvent(
          host: host, port: port, isReusedConnection: reused, verifiedChain: chain,
          presentedChain: reused ? [] : presentedChain, pinning: pinning, error: rejection))
    }

    private static func certificate(_ x509: OpaquePointer) -> CNCertificate? {
      var output: UnsafeMutablePointer<UInt8>? = nil
      let length = i2d_X509(x509, &output)
      guard length > 0, let output else { return nil }
      defer { cnp_OPENSSL_free(output) }
      return try? CNCertificate(derEncoded: UnsafeBufferPointer(start: output, count: Int(length)))
    }

    private static func certificates(_ stack: OpaquePointer?) -> [CNCertificate]? {
      guard let stack else { return nil }
      let count = cnp_sk_X509_num(stack)
      guard count > 0 else { return nil }
      var result: [CNCertificate] = []
      result.reserveCapacity(Int(count))
      for index in 0..<count {
        guard let x509 = cnp_sk_X509_value(stack, index), let certificate = certificate(x509) else { return nil }
        result.append(certificate)
      }
      return result
    }

    private static func trustError(_ code: Int32, host: String) -> CNPinnedSessionError {
      switch code {
      case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
        return .hostnameMismatch(host: host)
      case X509_V_ERR_CERT_HAS_EXPIRED:
        return .certificateExpired(host: host)
      case X509_V_ERR_CERT_NOT_YET_VALID:
        return .certificateNotYetValid(host: host)
      default:
        return .untrustedChain(host: host, reason: String(cString: X509_verify_cert_error_string(Int(code))))
      }
    }

    // MARK: - Completion (loop thread)

    /// The outcome for libcurl's result code.
    func outcome(_ code: CURLcode) -> Result<TransferOutcome, CNPinnedSessionError> {
      if let rejection { return .failure(rejection) }
      guard code == CURLE_OK else { return .failure(failure(code)) }
      if connectOnly, !handshakeJudged {
        return .failure(.untrustedChain(host: host, reason: "the connection was not verified"))
      }
      guard let response = connectOnly ? HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil) : head.response(for: url) else {
        return .failure(.invalidResponse(host: host, reason: "no HTTP status line"))
      }
      return .success(TransferOutcome(response: response, body: body))
    }

    private func failure(_ code: CURLcode) -> CNPinnedSessionError {
      let message = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
      switch code {
      case CURLE_COULDNT_RESOLVE_HOST:
        return .cannotResolveHost(host: host)
      case CURLE_COULDNT_CONNECT:
        var osError = 0
        _ = cnp_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError)
        return osError == Int(ECONNREFUSED) ? .connectionRefused(host: host, port: port) : .cannotConnect(host: host, reason: message)
      case CURLE_OPERATION_TIMEDOUT:
        return .timedOut(host: host, seconds: timeout)
      case CURLE_SSL_CONNECT_ERROR:
        if let violation = versionViolation() { return .transportSecurity(violation) }
        return .tlsHandshakeFailed(host: host, reason: message)
      case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
        return .untrustedChain(host: host, reason: message)
      case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
        return .connectionLost(host: host, reason: message)
      case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
        return .invalidResponse(host: host, reason: message)
      case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
        return .invalidURL(url.absoluteString)
      default:
        return .transferFailed(host: host, reason: "\(message) (libcurl error \(code.rawValue))")
      }
    }
  }

  // MARK: - C callbacks: they capture nothing, find their transfer through libcurl's or OpenSSL's
  // user pointer, and fail closed when it is missing.

  private let bodyCallback: cnp_curl_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
  }

  private let headerCallback: cnp_curl_data_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
  }

  private let tlsContextCallback: cnp_curl_ssl_ctx_callback = { _, sslContext, context in
    guard let sslContext, let context else { return CURLE_ABORTED_BY_CALLBACK }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.configureTLS(OpaquePointer(sslContext)) ? CURLE_OK : CURLE_SSL_CERTPROBLEM
  }

  private let certificateVerifyCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = {
    storeContext, context in
    guard let storeContext else { return 0 }
    guard let context else {
      X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
      return 0
    }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.verifyChain(storeContext) ? 1 : 0
  }

  /// Records the version of the server's ServerHello (handshake message 2) and a fatal
  /// protocol_version alert (alert 70) from the server.
  private let messageCallback: cnp_ssl_message_callback = { isWrite, _, contentType, buffer, length, _, context in
    guard isWrite == 0, let buffer, let context else { return }
    let bytes = buffer.assumingMemoryBound(to: UInt8.self)
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if contentType == 22, length >= 6, bytes[0] == 2 {
      transfer.recordServerHello(version: Int(bytes[4]) << 8 | Int(bytes[5]))
    } else if contentType == 21, length >= 2, bytes[1] == 70 {
      transfer.recordProtocolVersionAlert()
    }
  }

  private let prerequestCallback: cnp_curl_prereq_callback = { context, _, _, _, _ in
    guard let context else { return Int32(CURL_PREREQFUNC_ABORT) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.checkBeforeRequest() ? Int32(CURL_PREREQFUNC_OK) : Int32(CURL_PREREQFUNC_ABORT)
  }
#endif
