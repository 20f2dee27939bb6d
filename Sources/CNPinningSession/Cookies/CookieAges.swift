import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When each cookie the session stored was stored, per storage: what "oldest" means when a full
/// registrable domain or a full jar must give cookies up (HTTPCookie has no creation time, and
/// a storage keeps no order). Cookies stored by anyone else are taken as older than any the
/// session stored. Entries live as long as their storage does, and only for cookies it holds.
final class CookieAges: Sendable {
  /// A cookie's identity in a storage: RFC 6265's name, domain and path.
  struct Key: Hashable, Sendable {
    let name: String
    let domain: String
    let path: String

    init(_ cookie: HTTPCookie) {
      (name, domain, path) = (cookie.name, cookie.domain.lowercased(), cookie.path)
    }
  }

  private struct Ledger {
    weak var storage: HTTPCookieStorage?
    var ages: [Key: UInt64] = [:]
  }

  private struct State {
    var ledgers: [ObjectIdentifier: Ledger] = [:]
    var clock: UInt64 = 0
  }

  private let state = Locked(State())

  /// The one ledger of the process.
  static let shared = CookieAges()

  /// Records that `cookie` was stored in `storage` now.
  func stored(_ cookie: HTTPCookie, in storage: HTTPCookieStorage) {
    state.withLock { state in
      state.clock += 1
      let id = ObjectIdentifier(storage)
      if state.ledgers[id]?.storage !== storage { state.ledgers[id] = Ledger(storage: storage) }
      state.ledgers[id]?.ages[Key(cookie)] = state.clock
    }
  }

  /// The order in which `cookies` of `storage` should go: expired ones first, then those stored
  /// by others, then the session's, oldest first.
  func oldestFirst(_ cookies: [HTTPCookie], in storage: HTTPCookieStorage, now: Date) -> [HTTPCookie] {
    let ages = state.withLock { state -> [Key: UInt64] in
      // Ledgers of storages that are gone are dropped as they are noticed.
      let live = state.ledgers.filter { $0.value.storage != nil }
      state.ledgers = live
      guard let ledger = state.ledgers[ObjectIdentifier(storage)], ledger.storage === storage else { return [:] }
      return ledger.ages
    }
    return cookies.sorted { first, second in
      let (firstExpired, secondExpired) = (
        first.expiresDate.map { $0 <= now } ?? false, second.expiresDate.map { $0 <= now } ?? false
      )
      if firstExpired != secondExpired { return firstExpired }
      return (ages[Key(first)] ?? 0, first.name) < (ages[Key(second)] ?? 0, second.name)
    }
  }

  /// Forgets the cookies of `storage` that it no longer holds.
  func keepOnly(_ held: [HTTPCookie], in storage: HTTPCookieStorage) {
    let keys = Set(held.map(Key.init))
    state.withLock { state in
      let id = ObjectIdentifier(storage)
      guard var ledger = state.ledgers[id], ledger.storage === storage else { return }
      ledger.ages = ledger.ages.filter { keys.contains($0.key) }
      state.ledgers[id] = ledger
    }
  }
}
