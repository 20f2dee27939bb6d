// The test kit is built on OpenSSL, which only the Linux build links.
#if CNPINNING_LINUX_BACKEND
import CNPinning

/// The standard private PKI of the tests and the demo's shape: Test Root X1 → R11 → a leaf for
/// `api.test` (and `localhost.test`, 127.0.0.1, ::1), each name changeable.
public struct TestPKI: Sendable {
  public let root: TestIdentity
  public let intermediate: TestIdentity
  public let leaf: TestIdentity

  /// Issues the three certificates; `leafSpec` adjusts the leaf's before it is issued.
  public init(
    root rootName: String = "Test Root X1", intermediate intermediateName: String = "R11",
    leaf leafName: String = "api.test", dnsNames: [String] = ["api.test", "localhost.test"],
    ipAddresses: [String] = ["127.0.0.1", "::1"], leafSpec: ((inout TestCertificateSpec) -> Void)? = nil
  ) throws {
    root = try TestIdentity.root(rootName)
    intermediate = try root.issueIntermediate(intermediateName)
    var spec = TestCertificateSpec.leaf(leafName, dnsNames: dnsNames, ipAddresses: ipAddresses)
    leafSpec?(&spec)
    leaf = try intermediate.issue(spec)
  }
}
#endif
