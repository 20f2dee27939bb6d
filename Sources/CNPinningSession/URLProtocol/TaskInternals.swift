#if CNPINNING_LINUX_BACKEND
import Foundation
import FoundationNetworking

/// What FoundationNetworking keeps internal about a URLSession task but a protocol needs, read by
/// reflection (`Mirror`), and what it does to a task's request that a protocol must undo. Every
/// reader returns nil when a Foundation version stores things differently, and the load then
/// fails saying so; `TaskInternalsTests` reads each one on the toolchain's Foundation and fails
/// loudly when one of them changes. Nothing else in the package looks inside FoundationNetworking.
enum TaskInternals {
  /// The `Cookie` header FoundationNetworking puts into every task's request from its
  /// configuration's storage (`URLSession._Configuration.setCookies`: every cookie the storage's
  /// `cookies(for:)` returns, `Secure` ones over http and ones on a public suffix included).
  static func cookieHeader(addedTo request: URLRequest, from storage: HTTPCookieStorage) -> String? {
    guard let url = request.url, let stored = storage.cookies(for: url), !stored.isEmpty else { return nil }
    return HTTPCookie.requestHeaderFields(with: stored)["Cookie"]
  }

  /// The task's work queue: FoundationNetworking expects every protocol-client call on it.
  static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
    storedValue("workQueue", of: task) as? DispatchQueue
  }

  /// The body an upload task was given (`upload(for:from:)`, `upload(for:fromFile:)`), which is
  /// not in the task's request.
  enum Body {
    case data(Data)
    case file(URL)
    case stream(InputStream)
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
    case ("stream", let stream as InputStream): return .stream(stream)
    default: throw URLError(.unknown)
    }
  }

  /// Whether the task's data goes to a delegate (`didReceive data` for each piece) rather than
  /// to a completion handler; nil when it cannot be told. Read on the task's work queue, which
  /// the session's task registry is confined to.
  static func hasDataDelegate(_ task: URLSessionTask) -> Bool? {
    guard let session = storedValue("session", of: task).flatMap(unwrapped),
      let registry = storedValue("taskRegistry", of: session),
      let behaviours = storedValue("behaviours", of: registry) as? [Int: Any],
      let behaviour = behaviours[task.taskIdentifier]
    else { return nil }
    // An enum case without a payload has no children; its name is its description.
    let name = Mirror(reflecting: behaviour).children.first?.label ?? String(describing: behaviour)
    return name == "callDelegate"
  }

  /// The URLSession the task belongs to (for its configuration's headers and cookies).
  static func session(of task: URLSessionTask) -> URLSession? {
    storedValue("session", of: task).flatMap(unwrapped) as? URLSession
  }

  /// The value inside an optional, or the value itself.
  private static func unwrapped(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first?.value
  }

  private static func storedValue(_ label: String, of object: Any) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
      if let child = current.children.first(where: { $0.label == label }) { return child.value }
      mirror = current.superclassMirror
    }
    return nil
  }
}
#endif
