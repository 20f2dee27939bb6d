#if CNPINNING_LINUX_BACKEND
internal import CCurl
internal import CNPinningCurlShims
import CNPinning
import Foundation

/// One libcurl easy handle, owned by the session's loop and lent to one job at a time.
///
/// libcurl's per-request callbacks point at this object, which owns the handle they belong to,
/// so they can never outlive it. The job currently using the handle is set by `bind` when it
/// starts and cleared by `unbind` when it ends; a callback that arrives with no job fails closed
/// (and stops a debug build). Touched only by the session's driver (see ``CurlMultiLoop``).
// Its driver-only variables are @exclusivity(unchecked) (docs/decisions/session-linux.md, "No runtime exclusivity checks on the driver's variables").
final class CurlEasy {
  let handle: UnsafeMutableRawPointer
  /// The job using the handle, between `bind` and `unbind`.
  @exclusivity(unchecked) private(set) var job: CurlJob? {
    didSet { unretainedJob = job.map(Unmanaged.passUnretained) }
  }
  /// ``job``, unretained, for libcurl's callbacks (about twenty a request: header lines,
  /// progress, body): `job` holds it from `bind` to `unbind`, and callbacks come only between.
  /// A retain and a release a callback were about 800 instructions a request.
  @exclusivity(unchecked) private var unretainedJob: Unmanaged<CurlJob>?
  /// The string lists the bound request's options point at (header lines, connect-to), freed
  /// when the handle is reset.
  @exclusivity(unchecked) private var lists: [UnsafeMutablePointer<curl_slist>] = []
  /// The options the handle keeps from its last request, when that was a plain GET
  /// (`KeptOptions`); nil when the handle is reset when unbound.
  @exclusivity(unchecked) private var kept: KeptOptions?
  /// How many times libcurl has sent the bound request (its prereq callback): more than once
  /// when it retried on a fresh connection.
  @exclusivity(unchecked) fileprivate(set) var attempts = 0
  /// Whether the bound request ended well at its first attempt, the only end after which the
  /// handle keeps its options (`KeptOptions`).
  @exclusivity(unchecked) private var endedAtFirstAttempt = false
  private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

  /// The session's record of the sockets its connections use (owned by the loop, which
  /// outlives every handle and connection).
  let sockets: OpaquePointer

  /// A handle that keeps TLS sessions and DNS answers in `share` (the session's) and opens its
  /// sockets through `sockets`.
  init(share: UnsafeMutableRawPointer, sockets: OpaquePointer) throws(CurlSetupError) {
    guard let handle = curl_easy_init() else { throw CurlSetupError("curl_easy_init failed") }
    self.handle = handle
    self.sockets = sockets
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    // The share survives curl_easy_reset, so it is set once.
    guard cnp_curl_setopt_pointer(handle, CURLOPT_SHARE, share) == CURLE_OK else {
      curl_easy_cleanup(handle)
      throw CurlSetupError("libcurl refused the session's share")
    }
  }

  deinit {
    curl_easy_cleanup(handle)
    for list in lists { curl_slist_free_all(list) }
    errorBuffer.deallocate()
  }

  static func from(_ pointer: UnsafeMutableRawPointer) -> CurlEasy {
    Unmanaged<CurlEasy>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// `body` run with the job using the handle, for a callback, not retained (see
  /// `unretainedJob`); nil (and a stop in debug builds) when a callback arrives while no job is
  /// bound.
  static func withJob<Result>(for context: UnsafeMutableRawPointer?, _ body: (CurlJob) -> Result) -> Result? {
    guard let context, let job = Unmanaged<CurlEasy>.fromOpaque(context)._withUnsafeGuaranteedRef({ $0.unretainedJob })
    else {
      assertionFailure("a libcurl callback arrived for a handle no job is using")
      return nil
    }
    return job._withUnsafeGuaranteedRef(body)
  }

  /// Lends the handle to `job`: every option is set from its request, or, when the handle kept
  /// the options of a plain GET that differed only in its URL, the URL alone.
  func bind(_ job: CurlJob, resolve: UnsafeMutablePointer<curl_slist>?) throws(CurlSetupError) {
    self.job = job
    errorBuffer[0] = 0
    attempts = 0
    endedAtFirstAttempt = false
    let options = Options(handle: handle)
    let keeps = KeptOptions(job.request, resolve: resolve)
    // Until the options are set: a bind that fails part-way leaves the handle to be reset.
    let kept = self.kept
    self.kept = nil
    if let kept, kept == keeps {
      try options.update(kept: kept, to: job.request)
      self.kept = kept
      return
    }
    if kept != nil { reset() }
    try options.apply(
      job.request, context: Unmanaged.passUnretained(self).toOpaque(), errorBuffer: errorBuffer, resolve: resolve,
      lists: &lists)
    guard cnp_curl_setopt_socket_registry(handle, sockets) == CURLE_OK else {
      throw CurlSetupError("libcurl refused the socket callbacks")
    }
    self.kept = keeps
  }

  /// libcurl's result, read before the handle is unbound: how it framed the response's body, and
  /// for a failure, the details.
  func result(_ code: CURLcode) -> CurlResult {
    endedAtFirstAttempt = code == CURLE_OK && attempts == 1
    var responseCode = 0
    _ = cnp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
    var statedLength: curl_off_t = -1
    _ = cnp_curl_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &statedLength)
    let framing = CurlResult.Framing(responseCode: responseCode, statedLength: Int64(statedLength))
    guard code != CURLE_OK else { return CurlResult(code: code, message: "", osError: 0, connectCode: 0, framing: framing) }
    let message = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    var osError = 0
    if code == CURLE_COULDNT_CONNECT { _ = cnp_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError) }
    var connectCode = 0
    _ = cnp_curl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectCode)
    return CurlResult(code: code, message: message, osError: osError, connectCode: connectCode, framing: framing)
  }

  /// Takes the handle back: no job, and no options or lists unless it keeps them for the next
  /// plain GET (`KeptOptions`).
  func unbind() {
    job = nil
    guard kept == nil || !endedAtFirstAttempt else { return }
    kept = nil
    reset()
  }

  private func reset() {
    curl_easy_reset(handle)
    for list in lists { curl_slist_free_all(list) }
    lists.removeAll(keepingCapacity: true)
  }
}

/// The options a handle keeps after a plain GET (no body, no proxy, not a probe), so that the
/// next such request with the same options but its URL sets only the URL instead of
/// `curl_easy_reset` and every option again (issue 68). libcurl keeps every option for the handle's next
/// transfers (its `curl_easy_setopt`), so the handle then holds exactly what a full `bind` would
/// set. Every other request, and every request after one, starts from a reset handle.
///
/// Only after a request that ended well at its first attempt: libcurl before 8.17 counts its
/// retries on a fresh connection (when a reused one turns out dead) per handle, not per request,
/// until `curl_easy_reset` (curl issue 18926), so a kept handle would lose them after five in all
/// (a server that renegotiates after each response showed it: `ConnectionReuseTests`). A
/// request that failed, was cancelled or was sent again leaves the handle to be reset.
private struct KeptOptions: Equatable {
  let headerLines: [String]
  let timeout: BoundedInterval?
  let resourceTimeout: BoundedInterval?
  let offersHTTP2: Bool
  let minimumVersion: CNTLSVersion
  let resolve: UnsafeMutablePointer<curl_slist>?

  /// Nil for a request that is not a plain GET: the handle is reset after it.
  init?(_ request: CurlRequest, resolve: UnsafeMutablePointer<curl_slist>?) {
    guard case .get = request.method, request.proxy == nil, !request.connectOnly, request.proxyHeaderLines.isEmpty
    else { return nil }
    headerLines = request.headerLines
    timeout = request.timeout
    resourceTimeout = request.resourceTimeout
    offersHTTP2 = request.offersHTTP2
    minimumVersion = request.tls.minimumVersion
    self.resolve = resolve
  }
}

/// Sets a request's options on a handle.
private struct Options {
  let handle: UnsafeMutableRawPointer

  /// For a handle that kept `kept`'s options: the request's URL, and the connect-to list again
  /// (libcurl loads it into the DNS cache at each transfer that finds it set, as a full bind does).
  func update(kept: KeptOptions, to request: CurlRequest) throws(CurlSetupError) {
    try set(CURLOPT_URL, request.url)
    if let resolve = kept.resolve { try check(cnp_curl_setopt_pointer(handle, CURLOPT_RESOLVE, resolve)) }
  }

  /// Every option from `request`. What it reads of a plain GET, the URL aside, is in
  /// `KeptOptions`, which a change here must keep so.
  func apply(
    _ request: CurlRequest, context: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>,
    resolve: UnsafeMutablePointer<curl_slist>?, lists: inout [UnsafeMutablePointer<curl_slist>]
  ) throws(CurlSetupError) {
    try set(CURLOPT_URL, request.url)
    try set(CURLOPT_PROTOCOLS_STR, "http,https")
    try set(CURLOPT_NOSIGNAL, 1)
    try setProxy(request.proxy, tunnels: request.isHTTPS)
    try set(CURLOPT_FOLLOWLOCATION, 0)
    try set(CURLOPT_ACCEPT_ENCODING, "")
    try set(CURLOPT_HTTP_VERSION, request.offersHTTP2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
    try check(cnp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, receiveBody))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
    try check(cnp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, receiveHeader))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
    try check(cnp_curl_setopt_prereq_callback(handle, judgeBeforeRequest))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_PREREQDATA, context))
    try check(cnp_curl_setopt_xferinfo_callback(handle, watchIdleTime, context))
    // Concurrent requests wait for a connection being set up rather than racing to open their
    // own, so that HTTP/2 multiplexes them.
    try set(CURLOPT_PIPEWAIT, 1)

    // TLS: OpenSSL verifies chain and host name against the session's store (set on each new
    // connection's context by the hooks); the pins are judged before each request.
    try set(CURLOPT_SSL_VERIFYPEER, 1)
    try set(CURLOPT_SSL_VERIFYHOST, 2)
    // A streamed body's HTTP/1.1 connections are kept apart from the others by naming TLS 1.3,
    // the highest version OpenSSL 3.0 has, as the maximum, which libcurl counts as another TLS
    // configuration: libcurl 7.88, once it has an HTTP/2 connection to a host, takes any busy
    // connection to that host for multiplexing, an HTTP/1.1 one in the middle of a body included.
    let maximum = request.offersHTTP2 ? Int(CURL_SSLVERSION_MAX_DEFAULT) : Int(CURL_SSLVERSION_MAX_TLSv1_3)
    try set(CURLOPT_SSLVERSION, Self.curlVersion(request.tls.minimumVersion) | maximum)
    // The session's store replaces curl's; without these libcurl would parse the whole system
    // bundle for every connection only to have it thrown away.
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_CAINFO, nil))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_CAPATH, nil))
    // libcurl's CA cache would hand the store of one TLS context (an HTTPS proxy's) to the
    // next (the origin's, inside the tunnel) after the hook set it: each context keeps its own.
    try set(CURLOPT_CA_CACHE_TIMEOUT, 0)
    // libcurl would otherwise switch on partial-chain trust in whatever store the context holds
    // (7.88's populate_x509_store), the shared system store included: any certificate in it
    // would become an anchor. Only custom anchors are trusted as given (`TrustStore`).
    try set(CURLOPT_SSL_OPTIONS, Int(CURLSSLOPT_NO_PARTIALCHAIN))
    try check(cnp_curl_setopt_ssl_ctx_callback(handle, configureTLS))
    try check(cnp_curl_setopt_pointer(handle, CURLOPT_SSL_CTX_DATA, context))
    // A libcurl that keeps TLS sessions serialized loses the verified chain kept with them.
    if !CurlVersion.loaded.keepsTLSSessionObjects { try set(CURLOPT_SSL_SESSIONID_CACHE, 0) }

    try setTimeouts(request)
    if let resolve { try check(cnp_curl_setopt_pointer(handle, CURLOPT_RESOLVE, resolve)) }

    if request.connectOnly {
      // A probe shows the certificates the server presents: a fresh connection, a full handshake.
      try set(CURLOPT_CONNECT_ONLY, 1)
      try set(CURLOPT_FORBID_REUSE, 1)
      try set(CURLOPT_FRESH_CONNECT, 1)
      try set(CURLOPT_SSL_SESSIONID_CACHE, 0)
      return
    }
    try setMethod(request.method, context: context)
    try setList(CURLOPT_HTTPHEADER, request.headerLines, lists: &lists)
    // The proxy's own fields go to it alone (libcurl's CURLHEADER_SEPARATE, said explicitly):
    // in the CONNECT of a tunnel, or with a plain-http request sent to the proxy.
    try set(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE))
    try setList(CURLOPT_PROXYHEADER, request.proxyHeaderLines, lists: &lists)
  }

  /// Sets a string-list option; the list is kept in `lists` until the request is unbound.
  private func setList(_ option: CURLoption, _ lines: [String], lists: inout [UnsafeMutablePointer<curl_slist>])
    throws(CurlSetupError)
  {
    var list: UnsafeMutablePointer<curl_slist>?
    for line in lines {
      // withCString copies a small string onto the stack; passing the String itself would make
      // a heap copy (utf8CString) for each.
      guard let longer = line.withCString({ curl_slist_append(list, $0) }) else {
        curl_slist_free_all(list)
        throw CurlSetupError("out of memory for the request's options")
      }
      list = longer
    }
    guard let list else { return }
    lists.append(list)
    try check(cnp_curl_setopt_pointer(handle, option, list))
  }

  /// The session's proxy for this request, or none: libcurl reads no proxy variable itself
  /// (the rules were read when the session was made). An HTTPS proxy is verified against its
  /// own store, which the TLS hook sets on its context.
  private func setProxy(_ proxy: CurlRequest.Proxy?, tunnels: Bool) throws(CurlSetupError) {
    try set(CURLOPT_PROXY, proxy?.url ?? "")
    try set(CURLOPT_NOPROXY, "")
    guard let proxy else { return }
    if tunnels { try set(CURLOPT_HTTPPROXYTUNNEL, 1) }
    if let credentials = proxy.credentials {
      try set(CURLOPT_PROXYUSERNAME, credentials.user)
      try set(CURLOPT_PROXYPASSWORD, credentials.password)
    }
    if proxy.isHTTPS {
      try set(CURLOPT_PROXY_SSL_VERIFYPEER, 1)
      try set(CURLOPT_PROXY_SSL_VERIFYHOST, 2)
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_PROXY_CAINFO, nil))
      try check(cnp_curl_setopt_pointer(handle, CURLOPT_PROXY_CAPATH, nil))
      try set(CURLOPT_PROXY_SSL_OPTIONS, Int(CURLSSLOPT_NO_PARTIALCHAIN))
    }
  }

  private static func curlVersion(_ version: CNTLSVersion) -> Int {
    switch version {
    case .tls10: Int(CURL_SSLVERSION_TLSv1_0)
    case .tls11: Int(CURL_SSLVERSION_TLSv1_1)
    case .tls12: Int(CURL_SSLVERSION_TLSv1_2)
    case .tls13: Int(CURL_SSLVERSION_TLSv1_3)
    }
  }

  /// Connecting (TLS included) uses the request timeout, and so does the wait for each next
  /// byte once the request is sent (URLSession's idle timeout: ``CurlTransfer/watchIdleTime``);
  /// the whole exchange the resource timeout (each bounded: ``BoundedInterval``).
  /// Each is set either way (0 is libcurl's default: its own connect timeout, no speed check,
  /// no overall limit), so that no value of a handle's earlier request is left.
  private func setTimeouts(_ request: CurlRequest) throws(CurlSetupError) {
    try set(CURLOPT_CONNECTTIMEOUT_MS, request.timeout?.milliseconds ?? 0)
    // libcurl's own speed check never fires (a year); with a limit set, libcurl looks at the
    // transfer every second, which is when the progress callback judges the idle time.
    try set(CURLOPT_LOW_SPEED_LIMIT, request.timeout == nil ? 0 : 1)
    try set(CURLOPT_LOW_SPEED_TIME, request.timeout == nil ? 0 : Int(BoundedInterval.maximum))
    try set(CURLOPT_TIMEOUT_MS, request.resourceTimeout?.milliseconds ?? 0)
  }

  private func setMethod(_ method: CurlRequest.Method, context: UnsafeMutableRawPointer) throws(CurlSetupError) {
    switch method {
    case .get:
      try set(CURLOPT_HTTPGET, 1)
    case .head:
      try set(CURLOPT_NOBODY, 1)
    case .withBody(let name, let body):
      if name != "POST" { try set(CURLOPT_CUSTOMREQUEST, name) }
      try set(CURLOPT_POST, 1)
      switch body {
      case .bytes(let bytes):
        try check(cnp_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
        // COPYPOSTFIELDS copies the bytes, so the Data need not outlive this call.
        let copied = bytes.withUnsafeBytes { raw in
          cnp_curl_setopt_pointer(
            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)
          )
        }
        try check(copied)
      case .streamed(let length):
        // Read as it is sent; an unknown length goes chunked on HTTP/1.1.
        try check(cnp_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length ?? -1)))
        try check(cnp_curl_setopt_data_callback(handle, CURLOPT_READFUNCTION, sendBody))
        try check(cnp_curl_setopt_pointer(handle, CURLOPT_READDATA, context))
        try check(cnp_curl_setopt_seek_callback(handle, rewindBody))
        try check(cnp_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, context))
      }
    }
  }

  private func set(_ option: CURLoption, _ value: Int) throws(CurlSetupError) {
    try check(cnp_curl_setopt_long(handle, option, value))
  }

  /// libcurl copies the string. withCString copies a small string (the empty ones included)
  /// onto the stack, where the implicit conversion would make a heap copy each time.
  private func set(_ option: CURLoption, _ value: String) throws(CurlSetupError) {
    try check(value.withCString { cnp_curl_setopt_string(handle, option, $0) })
  }

  private func check(_ code: CURLcode) throws(CurlSetupError) {
    guard code == CURLE_OK else {
      throw CurlSetupError("libcurl refused an option: \(String(cString: curl_easy_strerror(code)))")
    }
  }
}

// MARK: - libcurl callbacks: they capture nothing, find their job through the easy handle's
// object, only hand facts to it, and fail closed when there is none.

private let receiveBody: cnp_curl_data_callback = { data, size, count, context in
  switch CurlEasy.withJob(for: context, { $0.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count)) }) {
  case nil: return 0
  case .taken: return size * count
  case .paused: return Int(CURL_WRITEFUNC_PAUSE)
  case .refused: return 0
  }
}

private let sendBody: cnp_curl_data_callback = { buffer, size, count, context in
  guard let buffer else { return Int(CURL_READFUNC_ABORT) }
  switch CurlEasy.withJob(for: context, { $0.sendBody(UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) }) {
  case nil: return Int(CURL_READFUNC_ABORT)
  case .bytes(let sent): return sent
  case .end: return 0
  case .paused: return Int(CURL_READFUNC_PAUSE)
  case .failed: return Int(CURL_READFUNC_ABORT)
  }
}

/// libcurl rewinds a body only to send it again from the start (on a fresh connection).
private let rewindBody: cnp_curl_seek_callback = { context, offset, origin in
  guard offset == 0, origin == SEEK_SET, CurlEasy.withJob(for: context, { $0.rewindBody() }) == true else {
    return CURL_SEEKFUNC_CANTSEEK
  }
  return CURL_SEEKFUNC_OK
}

private let receiveHeader: cnp_curl_data_callback = { data, size, count, context in
  let taken = CurlEasy.withJob(for: context) { $0.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count)) }
  return taken == true ? size * count : 0
}

private let configureTLS: cnp_curl_ssl_ctx_callback = { _, sslContext, context in
  guard let sslContext, let configured = CurlEasy.withJob(for: context, { $0.configureTLS(OpaquePointer(sslContext)) })
  else { return CURLE_ABORTED_BY_CALLBACK }
  return configured ? CURLE_OK : CURLE_SSL_CERTPROBLEM
}

private let watchIdleTime: cnp_curl_xferinfo_callback = { context, _, downloaded, _, uploaded in
  CurlEasy.withJob(for: context) { $0.watchIdleTime(moved: Int64(downloaded) + Int64(uploaded)) } == true ? 0 : 1
}

private let judgeBeforeRequest: cnp_curl_prereq_callback = { context, _, _, remotePort, localPort in
  guard let context else { return Int32(CURL_PREREQFUNC_ABORT) }
  let judged = CurlEasy.withJob(for: context) { job -> Bool in
    let easy = CurlEasy.from(context)
    easy.attempts += 1
    return job.judge(ssl: cnp_curl_ssl_pointer(easy.handle)) {
      cnp_socket_registry_has_input(easy.sockets, localPort, remotePort) == 1
    }
  }
  return judged == true ? Int32(CURL_PREREQFUNC_OK) : Int32(CURL_PREREQFUNC_ABORT)
}
#endif
