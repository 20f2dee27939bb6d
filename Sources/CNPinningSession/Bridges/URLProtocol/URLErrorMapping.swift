#if CNPINNING_LINUX_BACKEND
import Foundation

/// The `URLError` a URLSession task fails with for a ``CNPinnedSessionError``: the code URLSession
/// itself would use, with the session's error (and its full reason) as the underlying error.
enum URLErrorMapping {
  static func urlError(for error: any Error, url: URL?) -> URLError {
    guard let error = error as? CNPinnedSessionError else {
      return URLError(.unknown, userInfo: userInfo(error, url: url))
    }
    return URLError(code(for: error), userInfo: userInfo(error, url: url))
  }

  static func code(for error: CNPinnedSessionError) -> URLError.Code {
    switch error.kind {
    case .untrustedChain, .hostnameMismatch, .pinMismatch, .untrustedProxy: return .serverCertificateUntrusted
    case .certificateExpired: return .serverCertificateHasBadDate
    case .certificateNotYetValid: return .serverCertificateNotYetValid
    case .transportSecurity(.insecureHTTP), .insecureConnectionToPinnedHost: return .appTransportSecurityRequiresSecureConnection
    case .transportSecurity, .tlsHandshakeFailed, .hostNotPinned, .connectionNotJudged: return .secureConnectionFailed
    case .connectionRefused, .cannotConnect, .proxyFailed: return .cannotConnectToHost
    case .cannotResolveHost: return .cannotFindHost
    case .timedOut: return .timedOut
    case .connectionLost: return .networkConnectionLost
    case .invalidResponse: return .badServerResponse
    case .responseTooLarge: return .dataLengthExceedsMaximum
    case .tooManyRedirects: return .httpTooManyRedirects
    case .cancelled, .sessionInvalidated: return .cancelled
    case .invalidURL, .invalidHost: return .badURL
    case .unsupportedRequest: return .unsupportedURL
    case .invalidArgument, .transferFailed, .setupFailed: return .unknown
    }
  }

  private static func userInfo(_ error: any Error, url: URL?) -> [String: Any] {
    var info: [String: Any] = [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: "\(error)"]
    if let url { info[NSURLErrorFailingURLErrorKey] = url }
    return info
  }
}
#endif
