import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hops of one request as redirects lead it on: the request to send next, the body to send
/// with it, and the credentials to hold back.
///
/// Credentials (request headers or `httpAdditionalHeaders`) go only to the original origin: once
/// a hop leaves it they are dropped for the rest of the chain. A body goes on to a redirect that
/// keeps the method (307, 308) and is dropped where the request becomes a GET; a streamed body
/// that cannot be read twice makes such a redirect an error rather than an empty request.
struct RedirectChain {
  /// The request to send next, its body included, and its URL checked and canonicalised (once a
  /// hop).
  private(set) var request: SessionRequest
  private(set) var target: RequestTarget
  /// Credential headers not to send; nil until a hop leaves the original origin.
  private(set) var withheld: CredentialHeaders?
  /// Where each hop's cookies come from and go to.
  let cookies: HTTPCookieStorage?
  /// The configuration's own credential headers, and the target whose origin credentials stay
  /// with: kept as given and read only when a redirect happens, which most requests never do.
  private let additionalCredentialHeaders: [String]
  private let originalTarget: RequestTarget
  private let follows: Bool
  private let maximum: Int
  private var redirects = 0

  /// `target`: `original`'s URL, checked.
  init(
    _ original: SessionRequest, target: RequestTarget, configuration: CNPinnedSessionConfiguration,
    cookies: CookieSource = .configuration
  ) {
    request = original
    self.target = target
    originalTarget = target
    self.cookies = cookies.storage(under: configuration)
    additionalCredentialHeaders = configuration.credentialHeaders
    follows = configuration.followsRedirects
    maximum = configuration.maximumRedirects
  }

  /// Moves on to the request that `response` redirects to; false when it is not a redirect the
  /// session follows.
  mutating func followRedirect(after response: TransferOutcome) throws(CNPinnedSessionError) -> Bool {
    guard follows, RedirectPolicy.isRedirect(response.statusCode),
      let (next, nextTarget) = try RedirectPolicy.nextRequest(
        status: response.statusCode, location: response.value(forField: "Location"), for: request)
    else { return false }
    redirects += 1
    guard redirects <= maximum else { throw .tooManyRedirects(maximum) }
    if next.method == request.method, case .upload(let upload) = next.body, !upload.canBeResent {
      throw .streamedBodyAskedForAgain(by: "the server's redirect (\(response.statusCode))")
    }
    if withheld == nil, nextTarget.origin != originalTarget.origin {
      withheld = CredentialHeaders(additional: additionalCredentialHeaders)
    }
    request = withheld.map { $0.removed(from: next) } ?? next
    target = nextTarget
    return true
  }
}
