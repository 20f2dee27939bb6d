/// Finds the configuration for a host: the host itself first, else the longest configured
/// domain with `includesSubdomains` that contains it on a label boundary. Lookups cost one hash
/// probe per label of the host, whatever the number of configured domains.
package struct HostIndex<Entry: Sendable>: Sendable {
  private var exact: [String: Entry] = [:]
  private var parents: [String: Entry] = [:]

  package init() {}

  package mutating func insert(_ host: HostName, includesSubdomains: Bool, _ entry: Entry) {
    exact[host.normalized] = entry
    if includesSubdomains && !host.isIPAddress { parents[host.normalized] = entry }
  }

  package func lookup(_ host: HostName) -> Entry? {
    if let entry = exact[host.normalized] { return entry }
    guard !host.isIPAddress, !parents.isEmpty else { return nil }
    let name = host.normalized.utf8
    var index = name.startIndex
    while let dot = name[index...].firstIndex(of: UInt8(ascii: ".")) {
      index = name.index(after: dot)
      if let entry = parents[String(host.normalized[index...])] { return entry }
    }
    return nil
  }
}
