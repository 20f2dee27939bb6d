// Uses the Linux transport, which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CCurl
import CNPinning
import CNPinningCurl
import CNPinningSession
import Foundation
import Testing

/// The libcurl versions whose multi interface has a known defect touching the per-host cap the
/// session sets, keyed on curl's release notes (issue 57, item 3), and what `cnpin --version` says.
@Suite("libcurl versions")
struct CurlVersionTests {
  @Test func versionNumbersReadAsCurlWritesThem() {
    #expect(CurlVersion(number: 0x07_58_01) == CurlVersion(7, 88, 1))
    #expect(CurlVersion(number: 0x08_0E_01).description == "8.14.1")
    #expect(CurlVersion(7, 88, 1) < CurlVersion(8, 0, 0))
    #expect(CurlVersion(8, 9, 9) < CurlVersion(8, 14, 0))
  }

  @Test(arguments: [
    (CurlVersion(7, 88, 1), [CurlMultiDefect]()),
    (CurlVersion(8, 13, 0), []),
    (CurlVersion(8, 14, 0), [.pendingMovedAllAtOnce]),
    (CurlVersion(8, 14, 1), [.pendingMovedAllAtOnce]),  // Debian 13
    (CurlVersion(8, 15, 0), [.pendingMovedAllAtOnce]),
    (CurlVersion(8, 16, 0), [.pendingStarvation]),
    (CurlVersion(8, 19, 0), [.pendingStarvation]),
    (CurlVersion(8, 20, 0), []),
  ])
  func defectsAreKeyedOnTheReleasesThatBroughtAndFixedThem(_ version: CurlVersion, _ expected: [CurlMultiDefect]) {
    #expect(version.defects == expected)
  }

  /// From 8.10.0 libcurl keeps TLS sessions serialized, losing the verified chain kept with
  /// them, so the session leaves resumption off there (7.88 keeps them as objects).
  @Test func resumptionIsLeftOffWhereLibcurlSerializesSessions() {
    #expect(CurlVersion(7, 88, 1).keepsTLSSessionObjects)
    #expect(CurlVersion(8, 9, 1).keepsTLSSessionObjects)
    #expect(!CurlVersion(8, 10, 0).keepsTLSSessionObjects)
    #expect(!CurlVersion(8, 14, 1).keepsTLSSessionObjects)
  }

  /// libcurl 8.6.0 added CURLE_TOO_LARGE (100), which 8.x returns for a response head over its
  /// limits (5,000 fields): read as such, it is an invalid response, not an unknown failure.
  @Test func aHeadTooLargeForANewerLibcurlIsKnown() {
    #expect(CurlResult.kind(ofCode: 100) == .tooLarge)
    #expect(CurlResult.kind(ofCode: 99) == .other)
  }

  @Test func theLoadedLibcurlIsTheOneCurlVersionInfoNames() {
    // curl_version() starts "libcurl/X.Y.Z": the running library's own words, read apart from version_num.
    let text = String(cString: curl_version())
    #expect(text.hasPrefix("libcurl/\(CurlVersion.loaded)"), "\(text)")
  }
}
#endif
