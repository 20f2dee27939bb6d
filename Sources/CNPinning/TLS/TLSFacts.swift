/// What a TLS stack reports about a connection, as plain values: filled by the session's
/// transports (OpenSSL's hooks on Linux) and read by its verdict, so that neither depends on
/// the other.

/// A cipher suite as far as the transport-security policy cares.
package struct NegotiatedCipher: Sendable, Equatable {
  package var name: String
  /// An AEAD cipher: AES-GCM or ChaCha20-Poly1305.
  package var isAuthenticatedEncryption: Bool
  /// ECDHE key exchange (forward secrecy in TLS 1.2).
  package var isForwardSecret: Bool

  package init(name: String, isAuthenticatedEncryption: Bool, isForwardSecret: Bool) {
    self.name = name
    self.isAuthenticatedEncryption = isAuthenticatedEncryption
    self.isForwardSecret = isForwardSecret
  }
}

/// Why OpenSSL refused a chain, translated from its error code by the TLS hooks.
package enum VerificationFailure: Error, Sendable, Equatable {
  case hostnameMismatch
  case expired
  case notYetValid
  /// The leaf's key is below OpenSSL's security level.
  case leafKeyTooSmall(found: String)
  /// A CA certificate's key is below OpenSSL's security level.
  case caKeyTooSmall(certificate: String, found: String)
  /// A CA certificate's signature uses a digest below OpenSSL's security level.
  case weakSignatureHash(certificate: String, found: String)
  /// Any other reason, in OpenSSL's words.
  case untrusted(reason: String)
}

/// What the TLS hooks saw of a handshake that did not complete.
package struct HandshakeFailureFacts: Sendable {
  /// The protocol version of the server's ServerHello, when one arrived.
  package var serverHelloVersion: Int?
  /// Whether the server answered with a protocol_version alert (it shares no version with us).
  package var serverRefusedVersions = false
  /// OpenSSL's refusal of the chain, when verification ran and failed.
  package var verificationFailure: VerificationFailure?
  /// What the server sent, when an observer wanted it.
  package var presented: [CNCertificate] = []

  // Inlinable: made for every request's completion in another module, where the call and its
  // default arguments cost about 160 instructions.
  @inlinable package init(
    serverHelloVersion: Int? = nil, serverRefusedVersions: Bool = false, verificationFailure: VerificationFailure? = nil,
    presented: [CNCertificate] = []
  ) {
    self.serverHelloVersion = serverHelloVersion
    self.serverRefusedVersions = serverRefusedVersions
    self.verificationFailure = verificationFailure
    self.presented = presented
  }
}

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
