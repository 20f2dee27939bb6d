// Compiled into CNPinningSession by `make apple-check` only. Apple's URLSession calls a delegate
// method only if it matches an optional Objective-C requirement exactly; a near miss compiles
// and is silently never called. These conformances turn a near miss into a compile error
// (the protocols are in Stubs/AppleFoundationDeltas.swift).
extension PinningTaskDelegate: AppleAsyncTaskChallengeHandling {}
extension PinningStreamDelegate: AppleAsyncTaskChallengeHandling {}
extension RedirectRefusal: AppleAsyncRedirectHandling {}
extension PinningSessionDelegate: AppleAsyncSessionChallengeHandling {}
extension PinningSessionDelegate: AppleAsyncRedirectHandling {}
extension PinningSessionDelegate: AppleTaskCreationHandling {}

// TaskBodyDelegate implements the completion-handler forms of NSURLSessionDataDelegate and
// NSURLSessionTaskDelegate methods, which FoundationNetworking declares too, with default
// implementations that would satisfy a protocol check. `override` compiles only for a method
// TaskBodyDelegate itself declares, so each line below fails the check if its method is missing
// or no longer has Apple's signature (developer.apple.com/documentation/foundation/urlsessiondatadelegate
// and .../urlsessiontaskdelegate, with their @Sendable handlers).
private final class TaskBodyDelegateSignatures: TaskBodyDelegate, @unchecked Sendable {
  override func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {}
  override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
  override func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
  override func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {}
  override func urlSession(
    _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {}
  override func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}
}

// The same check for the stream delegate's data-delegate methods (StreamBodyDelegate's, which
// returns redirects through the completion-handler form, as TaskBodyDelegate does).
private final class PinningStreamDelegateSignatures: PinningStreamDelegate, @unchecked Sendable {
  override func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {}
  override func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {}
  override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
  override func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
  override func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}
  override func urlSession(
    _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {}
}
