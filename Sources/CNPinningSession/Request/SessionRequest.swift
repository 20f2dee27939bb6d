import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request as the session carries it from its public API to the wire: the method, the URL,
/// the header fields in the order written with their repeats, the body and its source, and the
/// label its events carry. `URLRequest` is read only where an API takes one (`data(for:)`, the
/// URLProtocol) and made only where one is needed (the Apple transport).
package struct SessionRequest: Sendable {
  package var method: String
  package var url: URL
  /// In order, with repeats: what the wire gets, under the rules of ``RequestHeaders``.
  package var fields: [CNHTTPField]
  package var body: Body
  /// Seconds to connect or to wait for data; nil: the configuration's.
  package var timeout: BoundedInterval?
  /// Whether stored cookies go with the request and cookies it gets are kept
  /// (`URLRequest.httpShouldHandleCookies`).
  package var handlesCookies = true
  /// The ``CNHTTPRequest``'s label, carried by the request's events.
  package var label: String?

  /// Where a request's body comes from.
  package enum Body: Sendable {
    case none
    /// Bytes held in memory: sent again to a redirect that keeps the body.
    case data(Data)
    /// Read as it is sent (a file, a stream, a sequence of chunks).
    case upload(UploadSource)
  }

  package init(
    method: String = "GET", url: URL, fields: [CNHTTPField] = [], body: Body = .none, timeout: TimeInterval? = nil,
    label: String? = nil
  ) {
    self.method = method
    self.url = url
    self.fields = fields
    self.body = body
    self.timeout = timeout.flatMap(BoundedInterval.init)
    self.label = label
  }

  /// `request` as the session sends it: its fields as the `URLRequest` holds them (a dictionary:
  /// one value per name, `addValue`'s repeats joined by ","), sorted by name, and its
  /// `httpBodyStream` taken over (only the session reads it from then on), or its `httpBody`.
  package init(_ request: URLRequest) {
    method = request.httpMethod ?? "GET"
    url = request.url ?? URL(string: "about:blank")!
    fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { CNHTTPField(name: $0.key, value: $0.value) }
    if let stream = request.httpBodyStream {
      body = .upload(.stream(UploadSource.BodyStream(stream: stream)))
    } else if let data = request.httpBody {
      body = .data(data)
    } else {
      body = .none
    }
    timeout = BoundedInterval(request.timeoutInterval)
    handlesCookies = request.httpShouldHandleCookies
  }

  /// The value of the field `name` (any ASCII case), repeats joined by ", "; nil without one.
  package func value(forField name: String) -> String? {
    let key = FieldName.key(name)
    let values = fields.filter { FieldName.key($0.name) == key }.map(\.value)
    return values.isEmpty ? nil : values.joined(separator: ", ")
  }

  /// The request without the fields named `names` (lower case).
  package func removingFields(_ names: Set<String>) -> SessionRequest {
    var request = self
    request.fields.removeAll { names.contains(FieldName.key($0.name)) }
    return request
  }

  /// The body's length when it is known before sending: its bytes', a file's, a sequence's
  /// stated one; nil for a stream (its `Content-Length` field gives it one).
  private var bodyLength: Int? {
    switch body {
    case .none: 0
    case .data(let data): data.count
    case .upload(.chunks(let upload)): upload.length
    case .upload(.file(let url)): (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
    case .upload(.stream): nil
    }
  }

  /// The length `Content-Length` states, checked: every such field a plain decimal number (no
  /// sign, no space: RFC 9110 §8.6), all the same, and the same as a body whose length is known.
  /// nil without the field. Throws `invalidArgument` naming the field otherwise: a length that
  /// contradicts the body would desynchronise a kept-alive connection.
  package func statedLength() throws(CNPinnedSessionError) -> Int? {
    try statedLength(bodyLength: bodyLength)
  }

  /// The `Content-Length` fields' length, checked as `statedLength` says, against `known` (a
  /// body's length, when known).
  func statedLength(bodyLength known: Int?) throws(CNPinnedSessionError) -> Int? {
    let stated = fields.filter { FieldName.key($0.name) == "content-length" }.map(\.value)
    guard let first = stated.first else { return nil }
    for value in stated {
      guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        throw .invalidArgument("the request's Content-Length field is not a length (a plain decimal number): \"\(value)\"")
      }
      guard value == first || Int(value) == Int(first) else {
        throw .invalidArgument("the request has two Content-Length fields that differ (\(first) and \(value))")
      }
    }
    let length = Int(first)!
    if let known, known != length {
      throw .invalidArgument("the request's Content-Length field (\(length)) differs from its body's length (\(known))")
    }
    return length
  }

  /// The request as a `URLRequest`, for the transport that needs one (Apple's URLSession): the
  /// fields added in order (repeats joined by "," as `addValue` joins them), the bytes of a body
  /// held in memory.
  package var urlRequest: URLRequest {
    var request = URLRequest(url: url)
    // GET is URLRequest's own; its setter compares the name with every method it knows.
    if method != "GET" { request.httpMethod = method }
    if let timeout { request.timeoutInterval = timeout.seconds }
    request.httpShouldHandleCookies = handlesCookies
    for field in fields { request.addValue(field.value, forHTTPHeaderField: field.name) }
    if case .data(let data) = body { request.httpBody = data }
    return request
  }
}
