// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The CA catalogue: each hierarchy whole, its keys well-formed, and each of its shapes built with
/// the test kit's keys and real names, so that the chain `cnpin pins` suggests for the shapes
/// accepts every one of them and the rehearsal finds nothing it refuses.
@Suite("CA catalogue")
struct CACatalogueTests {
  @Test(arguments: CACatalogue.hierarchies.map(\.name))
  func eachHierarchyIsWholeAndItsKeysAreSHA256(_ name: String) throws {
    let hierarchy = try #require(CACatalogue.hierarchies.first { $0.name == name })
    let names = Set(hierarchy.certificates.map(\.name))
    for shape in hierarchy.shapes { #expect(shape.above.allSatisfy(names.contains), "\(shape.above)") }
    #expect(hierarchy.issuing.allSatisfy(names.contains), "\(hierarchy.issuing)")
    for certificate in hierarchy.certificates {
      for hash in [certificate.spkiSHA256, certificate.certificateSHA256].compactMap({ $0 }) {
        #expect(Data(base64Encoded: hash)?.count == 32, "\(certificate.name): \(hash)")
      }
      #expect(!certificate.source.isEmpty)
    }
    // A cross-sign has its root's key: CN and SPKI pins survive a re-issued cross-sign (2026-05-19),
    // whole-certificate pins do not.
    let byName = Dictionary(grouping: hierarchy.certificates.filter { $0.spkiSHA256 != nil }, by: \.name)
    for (name, certificates) in byName where certificates.count > 1 {
      #expect(Set(certificates.map(\.spkiSHA256)).count == 1, "\(name) has several keys")
      #expect(Set(certificates.compactMap(\.certificateSHA256)).count == certificates.compactMap(\.certificateSHA256).count)
    }
  }

  /// Each shape × issuing CA of an issuing hierarchy, built with its real names (keys made here):
  /// the suggestion for all of them accepts each, and `--rehearse` finds nothing refused.
  @Test(arguments: CACatalogue.hierarchies.filter(\.issues).map(\.name))
  func theSuggestionForEveryShapeAcceptsEachAndTheRehearsalAgrees(_ name: String) throws {
    let hierarchy = try #require(CACatalogue.hierarchies.first { $0.name == name })
    // One key per CA, as a CA has: a root's cross-signs carry its key, and each issuing CA is
    // issued once by the self-signed CA above it; each shape is the chain a store verifies.
    var keys: [String: TestPrivateKey] = [:]
    func key(_ name: String) throws -> TestPrivateKey {
      if let key = keys[name] { return key }
      let key = try TestPrivateKey.generate(.p256)
      keys[name] = key
      return key
    }
    func spec(_ name: String) throws -> TestCertificateSpec {
      var spec = TestCertificateSpec.ca(name)
      spec.key = try key(name)
      return spec
    }
    var built: [[CNCertificate]] = []
    for issuing in hierarchy.issuing {
      let above = try TestIdentity.selfSigned(try spec(hierarchy.shapes[0].above.last!))
      let ca = try above.issue(try spec(issuing))
      var leafSpec = TestCertificateSpec.leaf("unused", dnsNames: ["api.example.com"])
      leafSpec.subject = []
      let leaf = try ca.issue(leafSpec)
      for shape in hierarchy.shapes {
        var issuer = try TestIdentity.selfSigned(try spec(shape.above[0]))
        var chain = [issuer.certificate]
        for name in shape.above.dropFirst() {
          issuer = try issuer.issue(try spec(name))
          chain.append(issuer.certificate)
        }
        built.append(chain + [ca.certificate, leaf.certificate])
      }
    }
    // The suggestion comes from one issuing CA's shapes, as `cnpin pins` sees one server.
    let seen = Array(built.prefix(hierarchy.shapes.count))
    let chains = try SuggestedPins.chains(for: seen, host: "api.example.com")
    #expect(chains.count == 1, "\(chains)")
    let manager = try CNPinningManager(configuration: ["api.example.com": CNConfiguration(chains)])
    for chain in built {
      #expect(
        manager.evaluate(host: "api.example.com", chain: chain.reversed()).acceptedMatch != nil,
        "\(chains) refuses \(chain.map { $0.commonName ?? "-" })")
    }
    #expect(CACatalogue.hierarchies(namedBy: chains).map(\.name).contains(name))
    #expect(CACatalogue.refused(of: hierarchy, by: chains).isEmpty)
  }

  /// The keys of Let's Encrypt's certificates, as read from its published PEMs, are the ones the
  /// test vectors of those files give (openssl's pipeline, seed 002): a spot check of the data.
  @Test func letsEncryptsKeysAreTheirs() throws {
    let keys = Dictionary(CACatalogue.knownKeys.map { ($0.name, $0.spkiSHA256) }, uniquingKeysWith: { first, _ in first })
    #expect(keys["ISRG Root X1"] == "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=")
    #expect(keys["Root YE"] == "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=")
    #expect(keys["YE3"] == "ppiiCCS+BOR6GjPE+kiHMb6SAR8jox6QDiyibJwqz84=")
  }
}
#endif
