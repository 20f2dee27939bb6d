#if CNPINNING_LINUX_BACKEND
internal import CNPinningCurlShims

/// A libcurl version, as `curl_version_info` reports the library the process loaded (not the
/// headers it was built with: a distribution may update libcurl under a built binary).
package struct CurlVersion: Comparable, Sendable, CustomStringConvertible {
  package let major: Int
  package let minor: Int
  package let patch: Int

  package init(_ major: Int, _ minor: Int, _ patch: Int) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// From `version_num` (0xXXYYZZ).
  package init(number: UInt32) {
    self.init(Int(number >> 16 & 0xFF), Int(number >> 8 & 0xFF), Int(number & 0xFF))
  }

  /// The libcurl this process runs.
  package static let loaded = CurlVersion(number: cnp_curl_version_number())

  /// Whether the libcurl this process runs was built with HTTP/2: one built without it refuses
  /// `CURL_HTTP_VERSION_2TLS` ("Unsupported protocol") for every request, so the session then
  /// offers HTTP/1.1 only.
  package static let loadedSupportsHTTP2 = cnp_curl_has_http2() == 1

  package static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
  }

  package var description: String { "\(major).\(minor).\(patch)" }

  /// Whether this libcurl keeps TLS sessions for resumption as OpenSSL objects. From 8.10.0
  /// (RELEASE-NOTES: "openssl: fix the data race when sharing an SSL session between threads",
  /// commit a2bcec0) it keeps them serialized (DER) and makes a new object to resume, which
  /// drops what the session attached to the object: the chain verified for it. A resumed
  /// connection would then carry no verified chain and be refused, so with such a libcurl the
  /// session leaves resumption off (`CURLOPT_SSL_SESSIONID_CACHE` 0): every new connection makes
  /// a full handshake, verified; connections are still reused.
  package var keepsTLSSessionObjects: Bool { self < CurlVersion(8, 10, 0) }

  /// The known multi-interface defects of this version that touch an option the session sets.
  package var defects: [CurlMultiDefect] { CurlMultiDefect.allCases.filter { $0.affected.contains(self) } }
}

/// Known defects of libcurl's multi interface that touch `CURLMOPT_MAX_HOST_CONNECTIONS`, the
/// per-host cap the session sets (`httpMaximumConnectionsPerHost`). Both live in how libcurl
/// moves transfers out of its "pending" set, where the cap parks the transfers over it. The
/// ranges are keyed on curl's release notes (RELEASE-NOTES at each tag), read from the curl
/// repository: docs/decisions/session-linux.md lists them.
package enum CurlMultiDefect: CaseIterable, Sendable {
  /// 8.14.0 ("multi: do transfer book keeping using mid") moved every pending transfer to
  /// processing at once, each time one could go on: 500 transfers on 6 connections to one host
  /// took seconds (curl issue 18017). Fixed in 8.16.0 ("multi: process pending, one by one").
  case pendingMovedAllAtOnce
  /// 8.16.0's one-by-one move always took the pending transfer with the lowest id, so transfers
  /// added later could wait until they timed out (curl issue 21396). Fixed in 8.20.0 ("multi:
  /// enhance pending handles fairness").
  case pendingStarvation

  /// The versions that have the defect.
  package var affected: Range<CurlVersion> {
    switch self {
    case .pendingMovedAllAtOnce: return CurlVersion(8, 14, 0)..<CurlVersion(8, 16, 0)
    case .pendingStarvation: return CurlVersion(8, 16, 0)..<CurlVersion(8, 20, 0)
    }
  }

  /// What it is, in one line.
  package var summary: String {
    switch self {
    case .pendingMovedAllAtOnce:
      return
        "libcurl \(affected.lowerBound)–8.15.x moves every pending transfer at once when a per-host connection cap holds some back (curl issue 18017, fixed in 8.16.0)"
    case .pendingStarvation:
      return
        "libcurl \(affected.lowerBound)–8.19.x can leave transfers held back by a per-host connection cap pending until they time out (curl issue 21396, fixed in 8.20.0)"
    }
  }
}
#endif
