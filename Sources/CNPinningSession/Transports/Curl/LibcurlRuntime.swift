#if CNPINNING_LINUX_BACKEND
import CNPinningCurl

/// What `cnpin --version` says about the libcurl the process loaded: its version, and each known
/// multi-interface defect of it that touches an option the session sets, and what the session
/// does about it (docs/decisions/session-linux.md).
package enum LibcurlRuntime {
  package static var report: [String] {
    let version = CurlVersion.loaded
    let defects = version.defects
    guard !defects.isEmpty else {
      return ["libcurl \(version): no known multi-interface defect touches the options CNPinnedSession sets"]
    }
    return ["libcurl \(version): known multi-interface defects that touch the options CNPinnedSession sets:"]
      + defects.map { "  \($0.summary)" }
      + [
        "  CNPinnedSession keeps the per-host connection cap (httpMaximumConnectionsPerHost): measured with libcurl 8.15.0 and 8.17.0, it costs less than leaving it unset; libcurl 8.20.0 or later has the fixes"
      ]
  }
}
#endif
