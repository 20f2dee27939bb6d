#if os(Linux) && !CNPINNING_APPLE_CHECK
import Foundation
import FoundationNetworking

/// What FoundationNetworking keeps internal about a URLSession task but a protocol needs, read by
/// reflection (`Mirror`). Every reader returns nil when a Foundation version stores things
/// differently, and the load then fails saying so; tests run against the toolchain's Foundation.
enum TaskInternals {
  /// The task's work queue: FoundationNetworking expects every protocol-client call on it.
  static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
    storedValue("workQueue", of: task) as? DispatchQueue
  }

  /// The body an upload task was given (`upload(for:from:)`, `upload(for:fromFile:)`), which is
  /// not in the task's request.
  enum Body {
    case data(Data)
    case file(URL)
    case stream
  }

  /// The task's body: nil when it has none; throws when it has one that cannot be read.
  static func body(of task: URLSessionTask) throws(URLError) -> Body? {
    guard let known = storedValue("knownBody", of: task) else { throw URLError(.unknown) }
    // Optional<_Body>: no child when nil, else "some" holding the enum case.
    guard let some = Mirror(reflecting: known).children.first?.value else { return nil }
    guard let payload = Mirror(reflecting: some).children.first else { return nil }  // .none
    switch (payload.label, payload.value) {
    case ("data", let data as DispatchData): return .data(Data(data))
    case ("file", let url as URL): return .file(url)
    case ("stream", _): return .stream
    default: throw URLError(.unknown)
    }
  }

  private static func storedValue(_ label: String, of task: URLSessionTask) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: task)
    while let current = mirror {
      if let child = current.children.first(where: { $0.label == label }) { return child.value }
      mirror = current.superclassMirror
    }
    return nil
  }
}
#endif
