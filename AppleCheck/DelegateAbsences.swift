// Compiled into CNPinningSession by `make apple-check` only: methods a delegate must NOT have.
// URLSession sends session-level challenges (server trust among them) to the session delegate's
// urlSession(_:didReceive:…) when it has one, and only otherwise to the task's delegate, where
// CNPinnedSession's pinning runs (PinningTaskDelegate). RedirectRefusal, the session delegate,
// must therefore never answer them. Each declaration below is an invalid redeclaration, and
// fails the check, if RedirectRefusal declares the method itself.
extension RedirectRefusal {
  func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  { fatalError("never: a probe for the check") }

  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) { fatalError("never: a probe for the check") }
}
