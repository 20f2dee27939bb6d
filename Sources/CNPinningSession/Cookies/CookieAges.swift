@_spi(Locking) import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When each cookie the session stored was stored, and when each site's cookies were last used
/// (set by a response or sent with a request), per storage: what "oldest" and "least recently
/// used" mean when a full registrable domain or a full jar must give cookies up (HTTPCookie has
/// no creation time, and a storage keeps no order). Cookies stored by anyone else are taken as
/// older than any the session stored, and sites it never used as used least recently. Entries
/// live as long as their storage does, and only for cookies and sites it holds.
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
    var siteUses: [String: UInt64] = [:]
    /// The site of each domain the storage holds cookies of: a public-suffix lookup is most of
    /// the cost of placing a full jar's cookies, which each response that sets one does.
    var sites: [String: String] = [:]
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

  /// Records that the cookies of `site` in `storage` were used now.
  func used(site: String, in storage: HTTPCookieStorage) {
    state.withLock { state in
      state.clock += 1
      let id = ObjectIdentifier(storage)
      if state.ledgers[id]?.storage !== storage { state.ledgers[id] = Ledger(storage: storage) }
      state.ledgers[id]?.siteUses[site] = state.clock
    }
  }

  /// The sites of `domains` of `storage`, in order: remembered, else found by `place`.
  func sites(of domains: [String], in storage: HTTPCookieStorage, placing place: (String) -> String) -> [String] {
    var known = state.withLock { state in
      state.ledgers[ObjectIdentifier(storage)].flatMap { $0.storage === storage ? $0.sites : nil } ?? [:]
    }
    let sites = domains.map { domain in
      if let site = known[domain] { return site }
      let site = place(domain)
      known[domain] = site
      return site
    }
    state.withLock { state in
      let id = ObjectIdentifier(storage)
      if state.ledgers[id]?.storage !== storage { state.ledgers[id] = Ledger(storage: storage) }
      state.ledgers[id]?.sites = known
    }
    return sites
  }

  /// When each site of `storage` was last used (0: never by the session).
  func siteUses(in storage: HTTPCookieStorage) -> [String: UInt64] {
    state.withLock { state in
      guard let ledger = state.ledgers[ObjectIdentifier(storage)], ledger.storage === storage else { return [:] }
      return ledger.siteUses
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

  /// Forgets the cookies of `storage` that it no longer holds, and the sites and domains of none
  /// of them (`sites`, `domains`: those it holds cookies of).
  func keepOnly(_ held: [HTTPCookie], sites: Set<String>, domains: Set<String>, in storage: HTTPCookieStorage) {
    let keys = Set(held.map(Key.init))
    state.withLock { state in
      let id = ObjectIdentifier(storage)
      guard var ledger = state.ledgers[id], ledger.storage === storage else { return }
      ledger.ages = ledger.ages.filter { keys.contains($0.key) }
      ledger.siteUses = ledger.siteUses.filter { sites.contains($0.key) }
      ledger.sites = ledger.sites.filter { domains.contains($0.key) }
      state.ledgers[id] = ledger
    }
  }
}
