// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Testing

/// `cnpin catalogue` and `--catalogue FILE` (issue 64, item 1): the listing names each CA's
/// families with their status and successors and the dated events; `--format json` prints the
/// compiled-in document, which `--catalogue` takes back, edited, without a release; a malformed
/// one is refused naming its element.
@Suite("cnpin catalogue")
struct CatalogueCommandTests {
  @Test func theListingNamesFamiliesSuccessorsAndEvents() async throws {
    let run = try await cnpin(["catalogue", "--at", "2026-12-06"])
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("CA catalogue 2026.12.06, facts of 2026-12-06\n"))
    #expect(run.stdout.contains("  Generation X ECDSA (ECDSA, stopped issuing on 2026-05-13; succeeded by Generation Y ECDSA)"))
    #expect(run.stdout.contains("  Atlas R3 DV (RSA, stops issuing on 2027-04-15; succeeded by Atlas R46 DV)"))
    #expect(run.stdout.contains("  2027-04-15  Chrome: Chrome removes roots whose keys were made in 2008-09"))
    // At another day, the same families stand otherwise.
    let before = try await cnpin(["catalogue", "--at", "2026-02-19"])
    #expect(before.stdout.contains("  Generation Y ECDSA (ECDSA, announced for 2026-05-13)"), "\(before.stdout)")
  }

  @Test func theJSONIsTheDocumentAndAnEditedOneIsUsed() async throws {
    let json = try await cnpin(["catalogue", "--format", "json"])
    #expect(json.status == 0)
    #expect(json.stdout == CACatalogue.compiledIn.json)
    let directory = try TemporaryDirectory()
    // A newer catalogue: ISRG Root X1 leaves a store next year.
    let edited = json.stdout.replacingOccurrences(of: #""version": "2026.12.06""#, with: #""version": "2027.01.01""#)
      .replacingOccurrences(
        of: #""events": ["#,
        with:
          #""events": [{"date": "2027-06-01", "stores": ["Example Store"], "kind": "rootRemoved", "operators": [], "roots": ["ISRG Root X1"], "summary": "ISRG Root X1 leaves", "source": "a test"},"#
      )
    let file = try directory.file("catalogue.json", edited)
    let pins = try directory.file(
      "pins.json",
      #"""
      {"PinnedDomains": {"api.test": {"includesSubdomains": false, "chainSet": [
        [{"type": "prefixWithNumber", "value": "ISRG Root X"}, {"type": "exact", "value": "Root YR", "mayBeAnchor": true}, {"type": "prefixWithNumber", "value": "YR"}, {"type": "subjectAltName", "value": "api.test"}]
      ]}}}
      """#)
    let lint = try await cnpin(["lint", pins, "--trust", "none", "--catalogue", file, "--at", "2027-05-01", "--warn-days", "60"])
    #expect(lint.status == 4, "\(lint.stdout)")
    #expect(lint.stdout.contains("note: with the CA catalogue 2027.01.01, facts of 2026-12-06"))
    #expect(
      lint.stdout.contains(
        #"Example Store: ISRG Root X1 leaves (a test); for api.test: chainSet[0] starts at "ISRG Root X1" (one of its 2 shapes)"#),
      "\(lint.stdout)")
    // The compiled-in catalogue has no such event.
    let compiled = try await cnpin(["lint", pins, "--trust", "none", "--at", "2027-05-01", "--warn-days", "60"])
    #expect(compiled.status == 0, "\(compiled.stdout)")
  }

  @Test func aMalformedCatalogueIsRefusedNamingItsElement() async throws {
    let directory = try TemporaryDirectory()
    let file = try directory.file(
      "bad.json", CACatalogue.compiledIn.json.replacingOccurrences(of: #""status": "retiring""#, with: #""status": "soon""#))
    let run = try await cnpin(["catalogue", "--catalogue", file])
    #expect(run.status == 2)
    #expect(run.stderr.contains(#".status: "soon" is not one of announced, current, retiring, retired"#), "\(run.stderr)")
    let missing = try await cnpin(["lint", file, "--catalogue", directory.url.appendingPathComponent("none.json").path])
    #expect(missing.status == 2 && missing.stderr.contains("cannot read --catalogue"), "\(missing.stderr)")
  }
}
#endif
