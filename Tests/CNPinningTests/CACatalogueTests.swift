// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

/// The CA catalogue (issue 64): the data file read strictly, each family whole, every key it
/// gives checked against the PEM it was read from (kept in `catalogue/certificates/` with its
/// source), and each of its shapes built with the test kit's keys and real names, so that the
/// chain `cnpin pins` suggests for the shapes accepts every one of them and the rehearsal finds
/// nothing it refuses.
@Suite("CA catalogue")
struct CACatalogueTests {
  static let catalogue = CACatalogue.compiledIn
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The compiled-in catalogue is the data file, as it is.
  @Test func theCompiledInCatalogueIsTheDataFile() throws {
    let file = try String(contentsOf: Self.root.appendingPathComponent("catalogue/ca-catalogue.json"), encoding: .utf8)
    #expect(Self.catalogue.json == file)
    #expect(Self.catalogue.version == "2026.12.06" && Self.catalogue.date == "2026-12-06")
  }

  /// A catalogue file is read strictly: each malformed one is refused, naming the element.
  @Test(arguments: [
    (
      #""format": "cnpinning-ca-catalogue-1""#, #""format": "cnpinning-ca-catalogue-9""#,
      "format: \"cnpinning-ca-catalogue-9\" is not"
    ),
    (#""version": "2026.12.06","#, #""version": "2026.12.06", "extra": 1,"#, "unknown key \"extra\""),
    (#""date": "2026-12-06","#, #""date": "2026-13-06","#, "date: \"2026-13-06\" is not a day"),
    (#""status": "retiring""#, #""status": "current-ish""#, ".status: \"current-ish\" is not one of"),
    (#""issuing": ["#, #""issuing": ["YR9", "#, ".issuing[0]: \"YR9\" is none of the family's certificates"),
    (#""Generation Y RSA"\#n"#, #""Generation Z"\#n"#, "\"Generation Z\" is no other family of Let's Encrypt"),
    (#""GlobalSign"\#n      ]"#, #""Nobody's Root"\#n      ]"#, "\"Nobody's Root\" is no certificate of the catalogue"),
    (#""until": "2026-05-13""#, #""until": null"#, ".until: a retired family needs"),
    (#""spkiSHA256": "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=""#, #""spkiSHA256": "C5+lpZ7t""#, "is not a base64 SHA-256"),
    (#""keyType": "RSA""#, #""keyType": "DSA""#, ".keyType: is RSA or ECDSA"),
  ])
  func aMalformedCatalogueIsRefusedNamingTheElement(_ good: String, _ bad: String, _ message: String) throws {
    let json = Self.catalogue.json
    #expect(json.contains(good))
    let broken = json.replacingOccurrences(of: good, with: bad)
    #expect(throws: CACatalogue.ReadError.self) { try CACatalogue(json: broken, source: "x.json") }
    do {
      _ = try CACatalogue(json: broken, source: "x.json")
    } catch {
      #expect("\(error)".hasPrefix("x.json: ") && "\(error)".contains(message), "\(error)")
    }
    #expect(throws: CACatalogue.ReadError.self) { try CACatalogue(json: "{", source: "x.json") }
  }

  @Test(arguments: CACatalogue.compiledIn.families.map(\.title))
  func eachFamilyIsWhole(_ title: String) throws {
    let family = try #require(Self.catalogue.families.first { $0.title == title })
    let byName = Dictionary(grouping: family.certificates.filter { $0.spkiSHA256 != nil }, by: \.name)
    // A cross-sign has its root's key: CN and SPKI pins survive a re-issued cross-sign (2026-05-19),
    // whole-certificate pins do not.
    for (name, certificates) in byName where certificates.count > 1 {
      #expect(Set(certificates.map(\.spkiSHA256)).count == 1, "\(name) has several keys")
      #expect(Set(certificates.compactMap(\.certificateSHA256)).count == certificates.compactMap(\.certificateSHA256).count)
    }
    for successor in family.successors { #expect(Self.catalogue.family(successor, of: family.operatorName) != nil) }
  }

  /// Every key and certificate hash the catalogue gives is the one of the PEM it names, read
  /// here; a certificate without a PEM gives no certificate hash, and says where its key (if any)
  /// was read. The certificates no PEM was found for are counted, by name.
  @Test func everyKeyIsThePEMsItWasReadFrom() throws {
    var checked = 0
    var withoutPEM: [String] = []
    for certificate in Self.catalogue.families.flatMap(\.certificates) {
      guard let pem = certificate.pem else {
        #expect(certificate.certificateSHA256 == nil, "\(certificate.name)")
        if certificate.spkiSHA256 != nil { #expect(certificate.source.contains("the key of"), "\(certificate.name)") }
        if !withoutPEM.contains(certificate.name) { withoutPEM.append(certificate.name) }
        continue
      }
      let text = try String(contentsOf: Self.root.appendingPathComponent("catalogue/certificates/\(pem)"), encoding: .utf8)
      let read = try #require(try CNCertificate.certificates(pemEncoded: text).first)
      #expect(read.commonName == certificate.name, "\(pem)")
      #expect(certificate.spkiSHA256 == read.spkiSHA256Base64, "\(pem)")
      #expect(certificate.certificateSHA256 == Data(read.sha256).base64EncodedString(), "\(pem)")
      if let day = certificate.validUntil {
        #expect(ISO8601.string(from: read.notValidAfter).hasPrefix(day), "\(pem): notAfter \(read.notValidAfter)")
      }
      checked += 1
    }
    #expect(checked >= 50)
    print(
      "CA catalogue: \(checked) certificates checked against their PEMs; no PEM found for \(withoutPEM.count): \(withoutPEM.joined(separator: ", "))"
    )
  }

  /// Each shape × issuing CA of a family that issues or is announced, built with its real names
  /// (keys made here): the suggestion for one server's shapes accepts each, the suggestion made
  /// from the catalogue's names (what `cnpin pins` adds for a successor) accepts each, and
  /// `--rehearse` finds nothing refused.
  @Test(arguments: CACatalogue.compiledIn.families.filter { $0.status != .retired }.map(\.title))
  func theSuggestionForEveryShapeAcceptsEachAndTheRehearsalAgrees(_ title: String) throws {
    let hierarchy = try #require(Self.catalogue.families.first { $0.title == title })
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
    #expect(Self.catalogue.families(namedBy: chains).map(\.title).contains(title))
    #expect(CACatalogue.refused(of: hierarchy, by: chains).isEmpty)
    let named = try SuggestedPins.chains(for: hierarchy, host: "api.example.com")
    let fromNames = try CNPinningManager(configuration: ["api.example.com": CNConfiguration(named)])
    for chain in built {
      #expect(fromNames.evaluate(host: "api.example.com", chain: chain.reversed()).acceptedMatch != nil, "\(named)")
    }
    #expect(CACatalogue.refused(of: hierarchy, by: named).isEmpty)
  }

  /// The keys of Let's Encrypt's certificates, as read from its published PEMs, are the ones the
  /// test vectors of those files give (openssl's pipeline, seed 002): a spot check of the data.
  @Test func letsEncryptsKeysAreTheirs() throws {
    let keys = Dictionary(Self.catalogue.knownKeys.map { ($0.name, $0.spkiSHA256) }, uniquingKeysWith: { first, _ in first })
    #expect(keys["ISRG Root X1"] == "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=")
    #expect(keys["Root YE"] == "sCkq5UWXjg+7mKu9lMhhYF5bGLsy7VI/UNW3tccdR7w=")
    #expect(keys["YE3"] == "ppiiCCS+BOR6GjPE+kiHMb6SAR8jox6QDiyibJwqz84=")
  }
}
#endif
