import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fixed address for a host and port, as curl's `--resolve host:port:address`.
public struct CNHostOverride: Sendable, Hashable, CustomStringConvertible {
  /// The host name the override applies to.
  public let host: String
  /// The port it applies to.
  public let port: Int
  /// The IPv4 or IPv6 address to connect to instead.
  public let address: String

  /// Connect to `address` for `host`:`port`.
  public init(host: String, port: Int, address: String) {
    self.host = host
    self.port = port
    self.address = address
  }

  /// Parses `host:port:address`; an IPv6 address may be written with or without brackets.
  public init(_ text: String) throws(CNPinnedSessionError) {
    let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port),
      !parts[2].isEmpty
    else {
      throw .invalidArgument("\"\(text)\" is not HOST:PORT:ADDRESS (for example api.example.com:443:127.0.0.1)")
    }
    self.init(host: String(parts[0]), port: port, address: HostName.unbracketed(String(parts[2])))
  }

  public var description: String { "\(host):\(port):\(HostName.authority(address))" }
}
