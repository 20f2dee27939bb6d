#if CNPINNING_LINUX_BACKEND
internal import COpenSSL
internal import CNPinningShims
import CNPinning
import Foundation

// Ownership, by construction:
// - every OpenSSL callback finds its Swift object through ex_data of the OpenSSL object that
//   owns it: a connection's `TLSConnectionState` is held by the connection's SSL_CTX and
//   released by OpenSSL's free callback when the SSL_CTX goes; what the session keeps of a
//   verified chain (`CurlRequest.TLS.keepVerifiedChain`) is held by each SSL_SESSION it was
//   verified for (retained again when OpenSSL duplicates the session for a TLS 1.3 ticket) and
//   released when the session goes;
// - no OpenSSL object ever points at a request. Requests point at connection state (strongly),
//   never the other way round.
// - renegotiation is refused, so a connection is verified by exactly one handshake.

/// What the TLS hooks know about one connection. Owned by the connection's SSL_CTX; touched
/// only by the session's driver (inside libcurl and OpenSSL calls it makes; see ``CurlMultiLoop``).
// Unchecked Sendable: touched only by the session's driver, one thread at a time (inside libcurl and OpenSSL calls it makes).
final class TLSConnectionState: @unchecked Sendable {
  /// The store the connection's chain is verified against, and how (`ChainVerification.run`).
  let trustStore: TrustStore
  let wantsPresentedChain: Bool
  /// Makes what the session keeps of the chain verified for this connection.
  let keepVerifiedChain: @Sendable ([CNCertificate], [CNCertificate]) -> AnyObject
  /// Facts about a handshake that fails (the ServerHello's version, an alert, OpenSSL's refusal).
  var failure = HandshakeFailureFacts()
  /// How many requests were judged on this connection.
  var requestsJudged = 0
  /// Set when a request's verdict refused the connection's chain: TLS sessions (tickets) that
  /// arrive on it afterwards are not kept for resumption.
  var chainRefused = false
  /// libcurl's new-session callback, which `keepSession` forwards to; it stores sessions in
  /// the session's cache.
  var storeSession: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Int32)?
  /// The negotiated cipher, read once when the first request is judged.
  var cipher: NegotiatedCipher?
  /// The protocol ALPN chose ("h2", "http/1.1"), read with the cipher.
  var applicationProtocol: String?
  /// What the session kept of its verdict on the connection's last request, for the next one
  /// (``CurlJudgement/proceed(keeping:)``).
  var keptVerdict: (any AnyObject & Sendable)?
  /// Whether the server ended the TLS connection properly (a close_notify alert), which is what
  /// tells a body delimited by the connection's end from one cut short.
  var receivedCloseNotify = false

  init(_ tls: CurlRequest.TLS) {
    trustStore = tls.trustStore
    wantsPresentedChain = tls.wantsPresentedChain
    keepVerifiedChain = tls.keepVerifiedChain
  }
}

/// The OpenSSL side of the session: sets up each new connection's SSL_CTX and collects facts.
enum TLSHooks {
  /// ex_data slots: the SSL_CTX's connection state, the SSL_SESSION's verified chain.
  private static let connectionIndex = cnp_SSL_CTX_new_ex_index(releaseConnectionState)
  private static let sessionIndex = cnp_SSL_SESSION_new_ex_index(retainVerifiedChain, releaseVerifiedChain)

  /// Prepares a new connection's SSL_CTX: the session's trust store, the host name to verify
  /// and the time to verify at, the lowest version, no renegotiation, session tickets, and the
  /// hooks. Returns the connection's state, or why the context cannot be used.
  static func configure(_ context: OpaquePointer, for tls: CurlRequest.TLS, at date: Date) -> Result<
    TLSConnectionState, TLSSetupFailure
  > {
    guard connectionIndex >= 0, sessionIndex >= 0 else { return .failure(.init("OpenSSL has no ex_data slot left")) }
    // libcurl makes one SSL_CTX per connection; a shared one would mix connections' facts.
    guard SSL_CTX_get_ex_data(context, connectionIndex) == nil else {
      return .failure(.init("libcurl reused a TLS context across connections"))
    }
    SSL_CTX_set1_cert_store(context, tls.trustStore.store)
    // Hosts excepted from transport security may need OpenSSL's legacy algorithms; the rules
    // that still apply are judged by the session.
    if tls.lowersSecurityLevel { SSL_CTX_set_security_level(context, 0) }
    guard cnp_SSL_CTX_set_min_proto_version(context, Int32(tls.minimumVersion.rawValue)) == 1,
      let parameters = SSL_CTX_get0_param(context)
    else { return .failure(.init("OpenSSL refused TLS version \(tls.minimumVersion)")) }
    cnp_SSL_CTX_refuse_renegotiation(context)
    cnp_SSL_CTX_accept_session_tickets(context)
    cnp_SSL_CTX_set_max_cert_list(context, CurlRequest.TLS.maximumCertificateListSize)
    guard ChainVerification.requireHost(tls.host, isIPAddress: tls.hostIsIPAddress, in: parameters) else {
      return .failure(.init("\"\(tls.host)\" is not a host name or IP address that OpenSSL can verify"))
    }
    X509_VERIFY_PARAM_set_time(parameters, time_t(date.boundedEpochSeconds))
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    SSL_CTX_set_cert_verify_callback(context, verifyChain, nil)
    if tls.recordsVersionMessages { cnp_SSL_CTX_set_message_callback(context, recordMessage, nil) }
    SSL_CTX_set_info_callback(context, recordAlert)
    let state = TLSConnectionState(tls)
    state.storeSession = SSL_CTX_sess_get_new_cb(context)
    SSL_CTX_sess_set_new_cb(context, keepSession)
    guard SSL_CTX_set_ex_data(context, connectionIndex, Unmanaged.passRetained(state).toOpaque()) == 1 else {
      Unmanaged.passUnretained(state).release()
      return .failure(.init("OpenSSL cannot attach the connection's state"))
    }
    return .success(state)
  }

  /// Prepares an HTTPS proxy's SSL_CTX: the proxy's own trust store and host name, TLS 1.2 or
  /// later, no renegotiation. No state and no hooks: the proxy's chain is verified, never
  /// judged by pins, and never taken for the origin's. Returns why the context cannot be used.
  static func configureProxy(_ context: OpaquePointer, host: String, trustStore: TrustStore) -> TLSSetupFailure? {
    SSL_CTX_set1_cert_store(context, trustStore.store)
    guard cnp_SSL_CTX_set_min_proto_version(context, Int32(CNTLSVersion.tls12.rawValue)) == 1,
      let parameters = SSL_CTX_get0_param(context)
    else { return .init("OpenSSL refused TLS 1.2 for the proxy") }
    cnp_SSL_CTX_refuse_renegotiation(context)
    cnp_SSL_CTX_set_max_cert_list(context, CurlRequest.TLS.maximumCertificateListSize)
    // Custom anchors alone are trusted as given; the system's store never is (libcurl is told
    // not to switch that on). With both, a proxy's chain must reach an anchor of the whole
    // store: OpenSSL verifies it without a callback of ours, so there is no second try.
    if trustStore.trustsStoreAsGiven { X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
    let isIPAddress = (try? HostName.parse(host).get())?.isIPAddress ?? false
    guard ChainVerification.requireHost(host, isIPAddress: isIPAddress, in: parameters) else {
      return .init("\"\(host)\" is not a proxy host name or IP address that OpenSSL can verify")
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
    return nil
  }

  /// The facts a request's verdict needs, read from the connection's SSL just before the request
  /// is sent. Also stops the per-record message hook: the handshake is over.
  static func facts(of ssl: OpaquePointer) -> CurlConnectionFacts? {
    guard let state = connectionState(of: ssl) else { return nil }
    state.requestsJudged += 1
    let use: CurlConnectionFacts.Use
    if state.requestsJudged > 1 {
      use = .reused
    } else {
      use = cnp_SSL_session_reused(ssl) == 1 ? .resumed : .new
      SSL_set_msg_callback(ssl, nil)
      state.cipher = negotiatedCipher(ssl)
      state.applicationProtocol = selectedApplicationProtocol(ssl)
    }
    var verified: AnyObject?
    if SSL_get_verify_result(ssl) == X509_V_OK, let session = SSL_get_session(ssl),
      let pointer = SSL_SESSION_get_ex_data(session, sessionIndex)
    {
      verified = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }
    return CurlConnectionFacts(
      use: use, protocolVersion: Int(SSL_version(ssl)), cipher: state.cipher, applicationProtocol: state.applicationProtocol,
      verified: verified, keptVerdict: state.keptVerdict)
  }

  private static func selectedApplicationProtocol(_ ssl: OpaquePointer) -> String? {
    var alpn: UnsafePointer<UInt8>?
    var length: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &alpn, &length)
    return alpn.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) }
  }

  /// Makes the connection's TLS session unresumable, after its chain was refused: the next
  /// connection runs a full handshake and is judged on what the server presents then (a renewed
  /// certificate, say), not on the refused chain again.
  static func forgetSession(of ssl: OpaquePointer) {
    connectionState(of: ssl)?.chainRefused = true
    guard let session = SSL_get_session(ssl), let context = SSL_get_SSL_CTX(ssl) else { return }
    SSL_CTX_remove_session(context, session)
  }

  /// The state a connection's SSL_CTX holds; nil when the connection was not set up here.
  static func connectionState(of ssl: OpaquePointer) -> TLSConnectionState? {
    guard let context = SSL_get_SSL_CTX(ssl), let pointer = SSL_CTX_get_ex_data(context, connectionIndex) else {
      return nil
    }
    return Unmanaged<TLSConnectionState>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Keeps `chain` (what the session made of a verified chain) with `session`, replacing
  /// whatever it held.
  fileprivate static func record(_ chain: AnyObject, in session: OpaquePointer) -> Bool {
    let previous = SSL_SESSION_get_ex_data(session, sessionIndex)
    guard SSL_SESSION_set_ex_data(session, sessionIndex, Unmanaged.passRetained(chain).toOpaque()) == 1 else {
      Unmanaged.passUnretained(chain).release()
      return false
    }
    if let previous { Unmanaged<AnyObject>.fromOpaque(previous).release() }
    return true
  }

  private static func negotiatedCipher(_ ssl: OpaquePointer) -> NegotiatedCipher? {
    guard let cipher = SSL_get_current_cipher(ssl) else { return nil }
    // AES-GCM or ChaCha20-Poly1305, as ATS requires, told by the cipher's identifier rather than
    // by searching its name (Foundation's string search, on every new connection).
    let aead = SSL_CIPHER_get_cipher_nid(cipher)
    return NegotiatedCipher(
      name: String(cString: SSL_CIPHER_get_name(cipher)),
      isAuthenticatedEncryption: aead == NID_aes_128_gcm || aead == NID_aes_256_gcm || aead == NID_chacha20_poly1305,
      isForwardSecret: SSL_CIPHER_get_kx_nid(cipher) == NID_kx_ecdhe)
  }
}

/// Why a new connection's TLS context could not be set up.
struct TLSSetupFailure: Error, Sendable {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}

// MARK: - Reading certificates

extension TLSHooks {
  static func certificate(_ x509: OpaquePointer) -> CNCertificate? {
    var output: UnsafeMutablePointer<UInt8>? = nil
    let length = i2d_X509(x509, &output)
    guard length > 0, let output else { return nil }
    defer { cnp_OPENSSL_free(output) }
    return try? CNCertificate(derEncoded: UnsafeBufferPointer(start: output, count: Int(length)))
  }

  /// The certificates of a stack, in order; nil when the stack is empty or one cannot be read.
  static func certificates(_ stack: OpaquePointer?) -> [CNCertificate]? {
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

  /// OpenSSL's reason for refusing a chain, as a value.
  static func verificationFailure(_ storeContext: OpaquePointer) -> VerificationFailure {
    let code = X509_STORE_CTX_get_error(storeContext)
    let current = X509_STORE_CTX_get_current_cert(storeContext).flatMap { certificate($0) }
    switch code {
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostnameMismatch
    case X509_V_ERR_CERT_HAS_EXPIRED: return .expired
    case X509_V_ERR_CERT_NOT_YET_VALID: return .notYetValid
    case X509_V_ERR_EE_KEY_TOO_SMALL:
      let leaf = X509_STORE_CTX_get0_cert(storeContext).flatMap { certificate($0) }
      return .leafKeyTooSmall(found: leaf?.publicKeyKind.description ?? "a key that is too small")
    case X509_V_ERR_CA_KEY_TOO_SMALL:
      // The CA whose key failed the check is the certificate OpenSSL was at.
      return .caKeyTooSmall(
        certificate: VisibleText.quoted(current?.commonName ?? "a CA certificate"),
        found: current?.publicKeyKind.description ?? "a small key")
    case X509_V_ERR_CA_MD_TOO_WEAK:
      return .weakSignatureHash(
        certificate: VisibleText.quoted(current?.commonName ?? "a certificate"),
        found: current?.signatureHash.description ?? "a weak hash")
    default:
      return .untrusted(reason: String(cString: X509_verify_cert_error_string(Int(code))))
    }
  }
}

// MARK: - OpenSSL callbacks: each finds its state through ex_data and only records facts.

/// Runs OpenSSL's own verification (chain, dates, host name) and records the outcome: the
/// verified chain goes with the TLS session, a refusal with the connection. OpenSSL's verdict
/// on trust stands; everything else is judged before each request by the session.
private let verifyChain: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { storeContext, _ in
  guard let storeContext else { return 0 }
  guard let ssl = cnp_X509_STORE_CTX_get_ssl(storeContext), let state = TLSHooks.connectionState(of: ssl) else {
    X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
    return 0
  }
  let presented = state.wantsPresentedChain ? TLSHooks.certificates(X509_STORE_CTX_get0_untrusted(storeContext)) ?? [] : []
  let chain: [CNCertificate]
  switch ChainVerification.run(storeContext, trust: state.trustStore) {
  case .success(let verified): chain = verified
  case .failure(let failure):
    state.failure.verificationFailure = failure
    state.failure.presented = presented
    if X509_STORE_CTX_get_error(storeContext) == X509_V_OK {
      X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
    }
    return 0
  }
  guard let session = SSL_get_session(ssl), TLSHooks.record(state.keepVerifiedChain(chain, presented), in: session) else {
    state.failure.verificationFailure = .untrusted(reason: "the verified chain cannot be read")
    state.failure.presented = presented
    X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
    return 0
  }
  return 1
}

/// Records the version of the server's ServerHello (handshake message 2) and a fatal
/// protocol_version alert (alert 70) from the server.
private let recordMessage: cnp_ssl_message_callback = { isWrite, _, contentType, buffer, length, ssl, _ in
  guard isWrite == 0, contentType == 22 || contentType == 21, let buffer, let ssl,
    let state = TLSHooks.connectionState(of: ssl)
  else { return }
  let bytes = buffer.assumingMemoryBound(to: UInt8.self)
  if contentType == 22, length >= 6, bytes[0] == 2 {
    state.failure.serverHelloVersion = Int(bytes[4]) << 8 | Int(bytes[5])
  } else if contentType == 21, length >= 2, bytes[1] == 70 {
    state.failure.serverRefusedVersions = true
  }
}

/// Records a close_notify alert from the server (OpenSSL calls this for state changes and alerts,
/// not for every record).
private let recordAlert: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { ssl, situation, value in
  guard situation & SSL_CB_READ_ALERT == SSL_CB_READ_ALERT, value & 0xFF == SSL_AD_CLOSE_NOTIFY, let ssl,
    let state = TLSHooks.connectionState(of: ssl)
  else { return }
  state.receivedCloseNotify = true
}

/// Passes a new TLS session (a TLS 1.3 ticket, say) to libcurl's cache, unless the connection's
/// chain was refused: a refused chain must not come back through a later resumption.
private let keepSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
  guard let ssl, let state = TLSHooks.connectionState(of: ssl), !state.chainRefused, let store = state.storeSession
  else { return 0 }
  return store(ssl, session)
}

private let releaseConnectionState: cnp_ex_free_callback = { _, pointer, _, _, _, _ in
  guard let pointer else { return }
  Unmanaged<TLSConnectionState>.fromOpaque(pointer).release()
}

private let retainVerifiedChain: cnp_ex_dup_callback = { _, _, pointer, _, _, _ in
  if let value = pointer?.pointee { _ = Unmanaged<AnyObject>.fromOpaque(value).retain() }
  return 1
}

private let releaseVerifiedChain: cnp_ex_free_callback = { _, pointer, _, _, _, _ in
  guard let pointer else { return }
  Unmanaged<AnyObject>.fromOpaque(pointer).release()
}
#endif
