#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Foundation
import FoundationNetworking

/// What FoundationNetworking keeps internal about a URLSession task but a protocol needs, read by
/// reflection (`Mirror`). Every reader returns nil when a Foundation version stores things
/// differently, and the load then fails saying so; `TaskInternalsTests` reads each one on the
/// toolchain's Foundation and fails loudly when one of them changes. Nothing else in the package
/// looks inside FoundationNetworking.
enum TaskInternals {
  /// What a protocol needs of its task, read in one pass over the task's stored properties.
  struct Reading {
    /// The task's work queue: FoundationNetworking expects every protocol-client call on it.
    let workQueue: DispatchQueue
    /// The URLSession the task belongs to (for its configuration's headers and cookies).
    let session: URLSession
    /// The body an upload task was given, which is not in the task's request; nil when the task
    /// has none.
    let body: Body?
  }

  /// The body an upload task was given (`upload(for:from:)`, `upload(for:fromFile:)`).
  enum Body {
    case data(Data)
    case file(URL)
    case stream(InputStream)
  }

  /// The task's work queue, session and body; nil when this Foundation stores them differently.
  /// Throws when the task has a body that cannot be read.
  static func reading(of task: URLSessionTask) throws(URLError) -> Reading? {
    let values = storedValues(["workQueue", "session", "knownBody"], of: task)
    guard let workQueue = values[0] as? DispatchQueue, let session = values[1] as? URLSession, let known = values[2]
    else { return nil }
    return Reading(workQueue: workQueue, session: session, body: try body(known))
  }

  /// ``knownBody``, an `Optional<_Body>`: no child when nil, else "some" holding the enum case.
  private static func body(_ known: Any) throws(URLError) -> Body? {
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
  static func hasDataDelegate(_ task: URLSessionTask, of session: URLSession) -> Bool? {
    guard let registry = storedValues(["taskRegistry"], of: session)[0],
      let behaviours = storedValues(["behaviours"], of: registry)[0] as? [Int: Any],
      let behaviour = behaviours[task.taskIdentifier]
    else { return nil }
    // An enum case without a payload has no children; its name is its description.
    let name = Mirror(reflecting: behaviour).children.first?.label ?? String(describing: behaviour)
    return name == "callDelegate"
  }

  /// The stored properties `labels` of `object` (or of superclasses of its type), through one
  /// mirror of it. Where each sits is found once per type, by name, and remembered: a type's
  /// layout does not change while the process runs, and a look-up by name boxes the value of
  /// every property before it (it cost about 300,000 instructions per request, half of all a
  /// request through `.cnPinned` cost). A remembered place whose label differs is looked up by
  /// name again.
  private static func storedValues(_ labels: [String], of object: Any) -> [Any?] {
    let objectType = ObjectIdentifier(type(of: object))
    var mirrors = [Mirror(reflecting: object)]
    func mirror(at depth: Int) -> Mirror? {
      while mirrors.count <= depth {
        guard let superclass = mirrors[mirrors.count - 1].superclassMirror else { return nil }
        mirrors.append(superclass)
      }
      return mirrors[depth]
    }
    return labels.map { label -> Any? in
      let key = FieldKey(type: objectType, label: label)
      if let place = places.withLock({ $0[key] }), let children = mirror(at: place.depth)?.children,
        place.offset < children.count
      {
        let child = children[children.index(children.startIndex, offsetBy: place.offset)]
        if child.label == label { return child.value }
      }
      var depth = 0
      while let current = mirror(at: depth) {
        for (offset, child) in current.children.enumerated() where child.label == label {
          places.withLock { $0[key] = FieldPlace(depth: depth, offset: offset) }
          return child.value
        }
        depth += 1
      }
      return nil
    }
  }

  /// A stored property's name in one type.
  private struct FieldKey: Hashable {
    let type: ObjectIdentifier
    let label: String
  }

  /// Where a stored property sits: how many superclasses up from the type, and its place among
  /// that class's own stored properties.
  private struct FieldPlace {
    let depth: Int
    let offset: Int
  }

  /// Bounded by the few properties this file reads times the task and session classes there are.
  private static let places = Locked<[FieldKey: FieldPlace]>([:])
}
#endif
