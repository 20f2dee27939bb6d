import Foundation

/// The answer to `CNPinnedSession.exchange(_:)`, returned when its head has arrived: the body
/// follows as it arrives, read a chunk at a time (`body.chunks`) or a byte at a time.
public struct CNHTTPResponse: Sendable {
  /// The status code of the last response (redirects the session followed are not returned).
  public let statusCode: Int
  /// The header fields in the order received, with their repeats (on Apple platforms,
  /// URLSession's, which joins repeats and keeps no order: sorted by name).
  public let headerFields: [CNHTTPField]
  /// The URL that answered, after the redirects the session followed.
  public let url: URL
  /// The body, read as it arrives; the transfer waits while the reader does, and dropping it
  /// stops the transfer.
  public let body: CNPinnedSession.AsyncBytes

  /// The value of the first field named `name`, in any case, or nil.
  public func value(forHeaderField name: String) -> String? {
    let wanted = name.lowercased()
    return headerFields.first { $0.name.lowercased() == wanted }?.value
  }
}
