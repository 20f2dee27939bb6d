/// TLS protocol versions a session can require (and a test server can be limited to). TLS 1.0
/// and 1.1 exist only for transport-security exceptions of legacy hosts.
public enum CNTLSVersion: Int, Sendable, Comparable, CustomStringConvertible {
  /// TLS 1.0 (only for transport-security exceptions).
  case tls10 = 0x0301
  /// TLS 1.1 (only for transport-security exceptions).
  case tls11 = 0x0302
  /// TLS 1.2.
  case tls12 = 0x0303
  /// TLS 1.3.
  case tls13 = 0x0304

  public static func < (lhs: CNTLSVersion, rhs: CNTLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }
  public var description: String { "TLS 1.\(rawValue - 0x0301)" }
}
