import CNPinning
import Testing

/// The CA names of 2026 and how each CA names the next certificate of a family: the link `cnpin
/// pins` suggests for a name (`SuggestedPins.link(for:)`, the one home of the rule) accepts the
/// family's next names and refuses other CAs' names and the same CA's names outside the family
/// (no brand-wide prefix). "Next" names are the scheme's next step; where the CA has published
/// it (Let's Encrypt's YR3 and YE3 backups, Amazon's M04, Microsoft's 07 and 08) it is its own.
@Suite("CA naming schemes")
struct NamingSchemeTests {
  struct Row: Sendable, CustomTestStringConvertible {
    let ca: String
    let name: String
    let next: [String]
    let refused: [String]
    var testDescription: String { "\(ca): \(name)" }
  }

  static let table: [Row] = [
    Row(
      ca: "Let's Encrypt RSA (letsencrypt.org/certificates, 2026-07-08)", name: "YR1", next: ["YR2", "YR3"],
      refused: ["YE1", "R13", "WR1", "YR1 Test"]),
    Row(ca: "Let's Encrypt ECDSA", name: "YE2", next: ["YE1", "YE3"], refused: ["YR2", "E7", "WE1"]),
    Row(ca: "Let's Encrypt Generation X (retired)", name: "R10", next: ["R11", "R14"], refused: ["E5", "YR1", "WR1"]),
    Row(ca: "Google Trust Services RSA (pki.goog)", name: "WR1", next: ["WR2", "WR5"], refused: ["WE1", "YR1", "GTS CA 1C3"]),
    Row(ca: "Google Trust Services ECDSA", name: "WE1", next: ["WE2"], refused: ["WR1", "YE1", "GTS CA 1D4"]),
    Row(
      ca: "Sectigo DV RSA under Root R46", name: "Sectigo Public Server Authentication CA DV R36",
      next: ["Sectigo Public Server Authentication CA DV R37"],
      refused: [
        "Sectigo Public Server Authentication CA OV R36", "Sectigo Public Server Authentication CA DV E36",
        "Sectigo RSA Domain Validation Secure Server CA", "Sectigo Public Server Authentication Root R46",
      ]),
    Row(
      ca: "Sectigo DV ECDSA under Root E46", name: "Sectigo Public Server Authentication CA DV E36",
      next: ["Sectigo Public Server Authentication CA DV E37"],
      refused: ["Sectigo Public Server Authentication CA DV R36", "Sectigo ECC Domain Validation Secure Server CA"]),
    Row(
      ca: "GlobalSign Atlas, renamed every quarter", name: "GlobalSign Atlas R46 DV TLS CA 2026 Q3",
      next: ["GlobalSign Atlas R46 DV TLS CA 2026 Q4", "GlobalSign Atlas R46 DV TLS CA 2027 Q1"],
      refused: [
        "GlobalSign Atlas R46 OV TLS CA 2026 Q3", "GlobalSign Atlas R3 DV TLS CA 2026 Q3", "GlobalSign Root R46",
        "GlobalSign GCC R6 AlphaSSL CA 2025",
      ]),
    Row(
      ca: "DigiCert, a year and a counter", name: "DigiCert Global G2 TLS RSA SHA256 2020 CA1",
      next: ["DigiCert Global G2 TLS RSA SHA256 2020 CA2", "DigiCert Global G2 TLS RSA SHA256 2025 CA1"],
      refused: [
        "DigiCert Global G3 TLS ECC SHA384 2020 CA1", "DigiCert TLS RSA SHA256 2020 CA1", "DigiCert Global Root G2",
        "GeoTrust TLS RSA CA G1",
      ]),
    Row(
      ca: "Amazon (amazontrust.com)", name: "Amazon RSA 2048 M01", next: ["Amazon RSA 2048 M02", "Amazon RSA 2048 M04"],
      refused: ["Amazon ECDSA 256 M02", "Amazon RSA 4096 M01", "Amazon Root CA 1"]),
    Row(
      ca: "Apple", name: "Apple Public Server ECC CA 1 - G3", next: ["Apple Public Server ECC CA 1 - G4"],
      refused: ["Apple Public Server RSA CA 12 - G1", "Apple Public EV Server ECC CA 1 - G1"]),
    Row(
      ca: "Microsoft Azure issuing CAs", name: "Microsoft Azure RSA TLS Issuing CA 03",
      next: ["Microsoft Azure RSA TLS Issuing CA 07", "Microsoft Azure RSA TLS Issuing CA 08"],
      refused: ["Microsoft Azure ECC TLS Issuing CA 03", "Microsoft Azure TLS Issuing CA 01", "Microsoft RSA TLS CA 01"]),
  ]

  @Test(arguments: table)
  func theSuggestionAcceptsTheFamilyAndRefusesTheRest(_ row: Row) throws {
    let link = try SuggestedPins.link(for: row.name)
    #expect(link.matches(commonName: row.name), "\(link)")
    for next in row.next { #expect(link.matches(commonName: next), "\(link) refuses the next name \(next)") }
    for other in row.refused { #expect(!link.matches(commonName: other), "\(link) accepts \(other)") }
    // Every other CA's names of the table are refused too.
    for other in Self.table where other.ca != row.ca && !other.ca.hasPrefix(row.ca.prefix(13)) {
      #expect(!link.matches(commonName: other.name), "\(link) accepts \(other.name)")
    }
  }

  @Test func theSchemesAreRecognised() {
    #expect(
      SuggestedPins.NamingScheme(of: "GlobalSign Atlas R46 DV TLS CA 2026 Q3")
        == .yearAndQuarter(prefix: "GlobalSign Atlas R46 DV TLS CA "))
    #expect(
      SuggestedPins.NamingScheme(of: "DigiCert Global G2 TLS RSA SHA256 2020 CA1")
        == .yearAndCounter(prefix: "DigiCert Global G2 TLS RSA SHA256 "))
    // A four-digit number that is a key size, followed by no quarter or CA counter, is no year.
    #expect(SuggestedPins.NamingScheme(of: "Amazon RSA 2048 M01") == .trailingNumber(stem: "Amazon RSA 2048 M"))
    #expect(SuggestedPins.NamingScheme(of: "Root YE") == .fixed)
    #expect(SuggestedPins.NamingScheme(of: "2026") == .fixed)
  }
}
