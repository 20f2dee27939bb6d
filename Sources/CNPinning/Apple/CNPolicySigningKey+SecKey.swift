#if !CNPINNING_LINUX_BACKEND
import Foundation
import Security

extension CNPolicySigningKey {
  /// Reads a public `SecKey` (RSA of 2048 bits or more, or EC on P-256/P-384/P-521), the form
  /// the seed's `policySigningKey:` took. A private key is refused.
  public init(secKey: SecKey) throws(CNPolicyError) {
    guard let attributes = SecKeyCopyAttributes(secKey) as? [String: Any] else {
      throw .malformedKey("Security gives no attributes for the key")
    }
    guard (attributes[kSecAttrKeyClass as String] as? String) == (kSecAttrKeyClassPublic as String) else {
      throw .privateKeyGiven
    }
    let keyType = attributes[kSecAttrKeyType as String] as? String
    guard let type = [ExternalKeyType.rsa, .ellipticCurve].first(where: { $0.securityKeyType as String == keyType }) else {
      throw .unsupportedKey("a SecKey that is neither RSA nor EC")
    }
    var error: Unmanaged<CFError>?
    guard let data = SecKeyCopyExternalRepresentation(secKey, &error) as Data? else {
      throw .keyNotExported(error.map { "\($0.takeRetainedValue())" })
    }
    try self.init(externalRepresentation: [UInt8](data), type: type)
  }
}

extension CNPinningManager {
  /// The seed's form: reads the app's Info.plist and accepts enterprise policies signed with
  /// `policySigningKey`.
  public convenience init(authenticationHost: String, policySigningKey: SecKey, clockSkew: TimeInterval = 0) throws {
    try self.init(
      enterprise: CNEnterpriseOptions(
        authenticationHost: authenticationHost, policySigningKey: try CNPolicySigningKey(secKey: policySigningKey),
        clockSkew: clockSkew))
  }

  /// The seed's form with the pins in code.
  public convenience init(
    authenticationHost: String, policySigningKey: SecKey, configuration: [String: CNConfiguration],
    clockSkew: TimeInterval = 0
  ) throws {
    try self.init(
      configuration: configuration,
      enterprise: CNEnterpriseOptions(
        authenticationHost: authenticationHost, policySigningKey: try CNPolicySigningKey(secKey: policySigningKey),
        clockSkew: clockSkew))
  }
}
#endif
