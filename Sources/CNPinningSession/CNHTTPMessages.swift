@_spi(Locking) import CNPinning
import Foundation

/// A request for ``CNPinnedSession/exchange(_:)``: a method, a URL, ordered header fields and an
/// optional body sent as it is produced, a chunk at a time. It goes through the same pins,
/// transport-security rules, redirects, cookies, limits and events as `data(for:)`.
public struct CNHTTPRequest: Sendable {
  /// The method, "GET" unless set.
  public var method: String
  /// An absolute http or https URL.
  public var url: URL
  /// The header fields, sent in this order, each repeat as a field of its own (on Apple
  /// platforms URLSession joins a repeated name's values with ","). A `Content-Length` field
  /// must be a plain decimal that agrees with the body.
  public var headerFields: [CNHTTPField]
  /// The body to send, if any.
  public var body: Body?
  /// Seconds to connect or to wait for data; the session's `timeoutIntervalForRequest` when nil
  /// or longer (zero, negative and NaN: none of its own; at most a year).
  public var timeoutInterval: TimeInterval?
  /// A name for the request (an OpenAPI operation ID, say), carried by every
  /// ``CNConnectionEvent`` the request causes as `requestLabel`.
  public var label: String?

  /// A request for `url`.
  public init(
    method: String = "GET", url: URL, headerFields: [CNHTTPField] = [], body: Body? = nil,
    timeoutInterval: TimeInterval? = nil, label: String? = nil
  ) {
    self.method = method
    self.url = url
    self.headerFields = headerFields
    self.body = body
    self.timeoutInterval = timeoutInterval
    self.label = label
  }

  /// A request body: bytes in memory, or a sequence of chunks read only as the session sends
  /// them (the sequence is asked for its next chunk once the one before is nearly sent, so a
  /// producer is never more than a chunk ahead of the network).
  public struct Body: Sendable {
    /// The body's length in bytes, when known; sent as `Content-Length`. Without it the body
    /// goes chunked over HTTP/1.1 (HTTP/2 needs no length).
    public let length: Int?
    package let content: Content

    /// Where the bytes come from.
    package enum Content: Sendable {
      case data(Data)
      /// Makes the upload for one request, given its stated length.
      case chunks(@Sendable (Int?) -> ChunkedUpload)
    }

    /// `data`, held in memory: a redirect that keeps the body (307, 308) sends it again.
    public init(_ data: Data) {
      length = data.count
      content = .data(data)
    }

    /// The chunks of `sequence`, read once, as they are sent. `length`, when given, must be the
    /// sum of the chunks' sizes: a sequence that ends short of it or goes on past it fails the
    /// request with `invalidArgument` naming the length, before its last bytes are sent. A
    /// negative length (`URLResponse.expectedContentLength`'s -1 for "unknown") is refused with
    /// `invalidArgument` before anything is sent: give nil for a length not known.
    /// A redirect that keeps the body (307, 308) fails with `unsupportedRequest`, since a
    /// sequence is read only once. An error the sequence throws cuts the request off (never
    /// ending it as if whole) and fails it with `transferFailed` naming the error, or
    /// `cancelled` for a `CancellationError`.
    public init<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, length: Int? = nil) where Chunks.Element == Data {
      self.length = length
      content = .chunks { ChunkedUpload(sequence, length: $0) }
    }
  }
}

/// One HTTP header field, as sent or received: fields keep their order and their repeats in a
/// ``CNHTTPRequest`` and a ``CNHTTPResponse``, where a dictionary would lose both.
public struct CNHTTPField: Sendable, Hashable {
  /// The field's name, as written (HTTP/2 sends names in lower case).
  public var name: String
  /// The field's value, without surrounding white space.
  public var value: String

  /// A field named `name` with `value`.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}

/// The answer to ``CNPinnedSession/exchange(_:)``, returned when its head has arrived: the body
/// follows as it arrives, read a chunk at a time (`body.chunks`) or a byte at a time.
public struct CNHTTPResponse: Sendable {
  /// The status code of the last response (redirects the session followed are not returned).
  public let statusCode: Int
  /// The header fields in the order received, with their repeats (on Apple platforms,
  /// URLSession's, which joins repeats and keeps no order: sorted by name). Made from the
  /// received head when first read, then kept.
  public var headerFields: [CNHTTPField] {
    made.withLock { made in
      if let made { return made }
      let fields = outcome.fields
      made = fields
      return fields
    }
  }
  /// The URL that answered, after the redirects the session followed.
  public let url: URL
  /// The body, read as it arrives; the transfer waits while the reader does, and dropping it
  /// stops the transfer.
  public let body: CNPinnedSession.AsyncBytes
  /// The head the fields are made from, and the fields once made: a response whose fields are
  /// never read never makes them (about 3,500 instructions and five allocations a response;
  /// issue 68), and one read twice, or copied and read, makes them once.
  private let outcome: TransferOutcome
  private let made = Locked<[CNHTTPField]?>(nil)

  /// The response `outcome` says, for `url`, its body read from `body`.
  init(_ outcome: TransferOutcome, url: URL, body: CNPinnedSession.AsyncBytes) {
    statusCode = outcome.statusCode
    self.outcome = outcome
    self.url = url
    self.body = body
  }

  /// The value of the first field named `name`, in any ASCII case, or nil.
  public func value(forHeaderField name: String) -> String? {
    let wanted = FieldName.key(name)
    return headerFields.first { FieldName.key($0.name) == wanted }?.value
  }

  /// The body's length as the head states it, in bytes; nil when it is not known (see
  /// `statedLength(of:)`).
  public var expectedContentLength: Int64? { Self.statedLength(of: headerFields) }

  /// The body length `fields` state: the value of their `Content-Length` fields (a list of one
  /// value repeated is that value; the session refuses a response whose values differ, RFC 9110
  /// §8.6); nil when they state none or no plain decimal, when a `Transfer-Encoding` overrides
  /// it (RFC 9112 §6.3), or when the body is content-coded (what arrives is the decoded body).
  static func statedLength(of fields: [CNHTTPField]) -> Int64? {
    var values: Set<String> = []
    for field in fields {
      switch FieldName.key(field.name) {
      case "transfer-encoding": return nil
      case "content-encoding" where field.value.lowercased() != "identity": return nil
      case "content-length":
        for value in field.value.split(separator: ",", omittingEmptySubsequences: false) {
          values.insert(value.trimmingCharacters(in: .whitespaces))
        }
      default: continue
      }
    }
    guard values.count == 1, let value = values.first, !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    return Int64(value)
  }
}
