import Testing

@testable import CNPinningSession

#if CNPINNING_LINUX_BACKEND
@testable import CNPinningCurl
#endif

/// The public suffix list the cookie rules use, against the list's own published tests.
@Suite("Public suffix list")
struct PublicSuffixTests {
  @Test func theListsOwnTestsPass() {
    #expect(publicSuffixVectors.count > 70)
    for (domain, expected) in publicSuffixVectors {
      // The list's tests give names in any case and with a leading dot for "not a name".
      let registrable = PublicSuffixList.registrableDomain(of: domain.lowercased())
      #expect(registrable == expected?.lowercased(), "\(domain)")
    }
  }

  @Test(arguments: [
    ("com", true), ("co.uk", true), ("github.io", true), ("test", true), ("localhost", true), ("example.com", false),
    ("api.example.co.uk", false), ("foo.ck", true), ("www.ck", false), ("xn--p1ai", true),
  ])
  func publicSuffixes(_ domain: String, _ isSuffix: Bool) {
    #expect(PublicSuffixList.isPublicSuffix(domain) == isSuffix)
  }
}
