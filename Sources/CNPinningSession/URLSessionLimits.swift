import Foundation

extension CNPinnedSessionConfiguration {
  /// Why URLSession (the transport on Apple platforms) cannot honour this configuration, or nil.
  /// A setting it would silently ignore is refused when the session is made rather than
  /// bypassed. Platform-neutral, tested on Linux.
  var settingURLSessionCannotHonour: String? {
    switch proxy {
    case .http, .https:
      // An explicit proxy would need platform-specific connectionProxyDictionary keys.
      return
        "an explicit proxy needs the Linux transport; on Apple platforms use .environment (the system's proxy settings) or .direct"
    case .environment where noProxy != nil:
      return "noProxy needs the Linux transport; on Apple platforms the system's proxy settings say which hosts bypass it"
    case .direct, .environment:
      break
    }
    if !resolve.isEmpty {
      return "resolve (fixed addresses for host names) needs the Linux transport; URLSession resolves names itself"
    }
    return nil
  }
}
