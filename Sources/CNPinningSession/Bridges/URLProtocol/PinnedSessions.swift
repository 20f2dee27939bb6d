#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Foundation
import FoundationNetworking

/// A type that names one pinned session: the slot types are made at run time from two generic
/// bit types, so any number of configurations each get a protocol class of their own.
protocol SessionSlot {
  /// The session's index in ``PinnedSessions``.
  static var index: Int { get }
}

/// The slot with index 0.
enum SlotRoot: SessionSlot {
  /// Zero.
  static var index: Int { 0 }
}

/// The slot with index 2 × `Higher.index` + 0.
enum SlotBit0<Higher: SessionSlot>: SessionSlot {
  /// 2 × `Higher.index`.
  static var index: Int { Higher.index * 2 }
}

/// The slot with index 2 × `Higher.index` + 1.
enum SlotBit1<Higher: SessionSlot>: SessionSlot {
  /// 2 × `Higher.index` + 1.
  static var index: Int { Higher.index * 2 + 1 }
}

/// The sessions of pinned configurations, by slot. Sessions are never removed: a protocol class
/// is a type, copied into every URLSession's configuration and into any copy the app makes, and
/// nothing tells when the last of them is gone; one freed while a configuration still named it
/// would fail that configuration's requests. So the same manager and configuration get the same
/// session back, which bounds the cost by the number of distinct pin sets an app uses.
package enum PinnedSessions {
  private struct Entry {
    let manager: CNPinningManager?
    let configuration: CNPinnedSessionConfiguration
    let session: SessionEngine
  }
  private static let sessions = Locked<[Entry]>([])

  /// The protocol class for `manager` and `configuration`: an existing session's when one was
  /// made for the same manager object and an equal configuration, else a new session's.
  package static func protocolClass(manager: CNPinningManager?, configuration: CNPinnedSessionConfiguration) throws -> AnyClass {
    if let index = sessions.withLock({ $0.firstIndex { $0.manager === manager && $0.configuration == configuration } }) {
      return protocolClass(slot(index))
    }
    let session = try SessionEngine(
      manager: manager, configuration: configuration,
      makeTransport: { configuration throws(CNPinnedSessionError) in
        try CurlTransport(configuration: configuration)
      })
    let index = sessions.withLock { sessions in
      // Another thread may have made one meanwhile: keep the first.
      if let index = sessions.firstIndex(where: { $0.manager === manager && $0.configuration == configuration }) {
        return index
      }
      sessions.append(Entry(manager: manager, configuration: configuration, session: session))
      return sessions.count - 1
    }
    return protocolClass(slot(index))
  }

  static func session(at index: Int) -> SessionEngine? {
    sessions.withLock { $0.indices.contains(index) ? $0[index].session : nil }
  }

  /// How many sessions there are, for tests.
  static var count: Int { sessions.withLock { $0.count } }

  /// The slot type whose index is `index`, built from its binary digits, most significant first.
  private static func slot(_ index: Int) -> any SessionSlot.Type {
    guard index > 0 else { return SlotRoot.self }
    return appending(index & 1, to: slot(index >> 1))
  }

  private static func appending(_ bit: Int, to higher: any SessionSlot.Type) -> any SessionSlot.Type {
    func open<Higher: SessionSlot>(_: Higher.Type) -> any SessionSlot.Type {
      bit == 0 ? SlotBit0<Higher>.self : SlotBit1<Higher>.self
    }
    return open(higher)
  }

  private static func protocolClass(_ slot: any SessionSlot.Type) -> AnyClass {
    func open<Slot: SessionSlot>(_: Slot.Type) -> AnyClass { CNPinningURLProtocol<Slot>.self }
    return open(slot)
  }
}
#endif
