#if CNPINNING_LINUX_BACKEND
import CNPinningCurl

/// What `cnpin --version` says about the libcurl the process loaded: its version, and each known
/// multi-interface defect of it that touches an option the session sets, and what the session
/// does about it (docs/decisions/session-linux.md).
package enum LibcurlRuntime {
  package static var report: [String] {
    let version = CurlVersion.loaded
    let defects = version.defects
    var notes = defects.map { "  \($0.summary)" }
    if !defects.isEmpty {
      notes.append(
        "  CNPinnedSession keeps the per-host connection cap (httpMaximumConnectionsPerHost): measured with libcurl 8.15.0 and 8.17.0, it costs less than leaving it unset; libcurl 8.20.0 or later has the fixes"
      )
    }
    if !version.keepsTLSSessionObjects {
      notes.append(
        "  keeps TLS sessions serialized (from 8.10.0), which drops the verified chain CNPinnedSession keeps with them: TLS session resumption is off with this libcurl (each new connection makes a full handshake; connections are still reused)"
      )
    }
    if !CurlVersion.loadedSupportsHTTP2 {
      notes.append("  built without HTTP/2: CNPinnedSession offers HTTP/1.1 only with this libcurl")
    }
    guard !notes.isEmpty else {
      return ["libcurl \(version): no known difference touches the options CNPinnedSession sets"]
    }
    return ["libcurl \(version): what touches the options CNPinnedSession sets:"] + notes
  }
}
#endif
