#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request, checked and reduced to what libcurl is told: built on the caller's thread
/// without touching libcurl, so that a malformed request fails before anything is queued.
struct RequestPlan: Sendable {
  enum Method: Sendable {
    case get
    case head
    /// POST, or another method with a body (possibly empty).
    case withBody(name: String, body: Body)

    var isHEAD: Bool {
      if case .head = self { true } else { false }
    }

    /// The method's name, as sent.
    var name: String {
      switch self {
      case .get: "GET"
      case .head: "HEAD"
      case .withBody(let name, _): name
      }
    }

    /// Whether sending the request twice has the effect of sending it once (RFC 9110 §9.2.2).
    var isIdempotent: Bool {
      switch self {
      case .get, .head: true
      case .withBody(let name, _): ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(name)
      }
    }
  }

  /// A request body: bytes in memory, or read as it is sent.
  enum Body: Sendable {
    case bytes(Data)
    case streamed(any StreamedRequestBody)
  }

  /// The URL, checked and with its host canonical.
  let target: RequestTarget
  /// The URL as the caller wrote it.
  var url: URL { target.url }
  /// The canonical host: what TLS verifies and pins are looked up for.
  var host: String { target.host }
  var port: Int { target.port }
  var isHTTPS: Bool { target.isHTTPS }
  let method: Method
  /// Header lines in curl's form ("Name: value", or "Name;" for an empty value), for the origin,
  /// in the order written, repeats kept.
  let headerLines: [String]
  /// Header lines for the proxy alone (`Proxy-Authorization`); none without a proxy, so that
  /// they never reach an origin.
  let proxyHeaderLines: [String]
  /// How long to connect or to wait for data: the request's or the configuration's, whichever
  /// is tighter (nil: no limit).
  let timeout: BoundedInterval?
  /// How long the whole exchange may take (nil: no limit).
  let resourceTimeout: BoundedInterval?
  /// What the session takes for now (``CNPinnedSessionConfiguration/clock``).
  let clock: @Sendable () -> Date
  /// Whether the transfer stops after the TLS handshake (a probe), sending no request.
  let connectOnly: Bool
  /// The most decoded body bytes to accept.
  let bodyLimit: Int
  /// The proxy the request goes through, or nil to connect directly.
  let proxy: ProxyRoute?
  /// Whether HTTP/2 is offered. Not for a body the caller streams: libcurl 7.88 gives every
  /// HTTP/2 stream a 32 MiB window that a pause does not take back, so a reader that stops
  /// would let the server park up to that much in the process. Over HTTP/1.1, on a connection
  /// of its own, a pause stops reading the socket and TCP stops the server at the socket buffers.
  let offersHTTP2: Bool

  /// `fields`: what the engine decided goes out (``HopFields``), written here in curl's form.
  /// A streamed body is opened last, so that a plan that fails leaves nothing open.
  /// `destination`: where the response body goes. `target`: the request's URL, checked.
  init(
    request: SessionRequest, target: RequestTarget, fields: HopFields, configuration: CNPinnedSessionConfiguration,
    destination: BodyDestination = .memory, connectOnly: Bool = false, proxies: ProxyRules? = nil
  ) throws(CNPinnedSessionError) {
    self.target = target
    proxy = proxies?.route(isHTTPS: target.isHTTPS, host: target.host)
    self.connectOnly = connectOnly
    bodyLimit = configuration.bodyLimit(for: destination)
    offersHTTP2 = !destination.isStreamed
    timeout = configuration.requestTimeout(for: request)
    resourceTimeout = BoundedInterval(configuration.timeoutIntervalForResource)
    clock = configuration.clock
    if connectOnly {
      method = .get
      headerLines = []
      proxyHeaderLines = []
    } else {
      headerLines = try Self.headerLines(fields.origin)
      // `case .some`, not `proxy != nil`: ProxyRoute is Equatable, and Optional's `==` copies
      // both sides through their metadata.
      if case .some = proxy { proxyHeaderLines = try Self.lines(fields.proxy) } else { proxyHeaderLines = [] }
      method = try Self.method(of: request, host: target.host)
    }
  }

  /// The streamed body, if the request has one: it is closed when the request is over.
  var streamedBody: (any StreamedRequestBody)? {
    guard case .withBody(_, .streamed(let body)) = method else { return nil }
    return body
  }

  /// The method and body: the request's bytes, or its upload, read as it is sent.
  private static func method(of request: SessionRequest, host: String) throws(CNPinnedSessionError) -> Method {
    let name = request.method
    // GET, by far the most common, is a token: checked without walking its bytes.
    guard name == "GET" || (!name.isEmpty && name.utf8.allSatisfy(isTokenCharacter)) else {
      throw .invalidArgument("\"\(name)\" is not a valid HTTP method")
    }
    if name == "HEAD" { return .head }
    switch request.body {
    case .upload(.file(let url)):
      return .withBody(name: name, body: .streamed(try FileRequestBody(url: url, host: host)))
    case .upload(.stream(let stream)):
      let length = try request.statedLength()
      return .withBody(name: name, body: .streamed(InputStreamRequestBody(stream: stream, length: length, host: host)))
    case .upload(.chunks(let upload)):
      return .withBody(name: name, body: .streamed(ChunkedRequestBody(upload: upload, host: host)))
    case .data(let bytes):
      return .withBody(name: name, body: .bytes(bytes))
    case .none:
      return name == "GET" ? .get : .withBody(name: name, body: .bytes(Data()))
    }
  }

  /// The origin's fields, in order, then an empty `Expect` (unless one is set), so that libcurl
  /// never waits for a `100 Continue`.
  private static func headerLines(_ fields: [CNHTTPField]) throws(CNPinnedSessionError) -> [String] {
    var lines = try lines(fields)
    if !fields.contains(where: { FieldName.key($0.name) == "expect" }) { lines.append("Expect: ") }
    return lines
  }

  /// Fields in curl's form, in order, repeats kept (libcurl sends each line as given).
  private static func lines(_ fields: [CNHTTPField]) throws(CNPinnedSessionError) -> [String] {
    var lines: [String] = []
    lines.reserveCapacity(fields.count)
    for field in fields { lines.append(try line(name: field.name, value: field.value)) }
    return lines
  }

  /// One field in curl's form; a name or value that could split the head is refused.
  private static func line(name: String, value: String) throws(CNPinnedSessionError) -> String {
    guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter),
      !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
    else { throw .invalidArgument("the header \"\(name)\" has an invalid name or value") }
    // "Name;" sends an empty header; "Name:" would remove curl's own. An empty Expect is sent
    // as "Expect: ", which libcurl reads as "send none of your own".
    if value.isEmpty { return FieldName.key(name) == "expect" ? "\(name): " : "\(name);" }
    return "\(name): \(value)"
  }

  private static func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }
}
#endif
