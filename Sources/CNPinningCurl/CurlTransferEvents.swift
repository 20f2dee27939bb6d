#if CNPINNING_LINUX_BACKEND
import CNPinning

/// What a job hands the session as it runs, on the session's driver (inside libcurl's callbacks):
/// facts in, decisions out. The session decides (pins, transport rules, limits, errors); this
/// target only moves bytes and collects facts.
package protocol CurlTransferEvents: AnyObject {
  /// Whether the request may go on the TLS connection just before it is sent: the one judgement
  /// point for new, reused and resumed connections and HTTP/2 streams. `resend` says libcurl is
  /// sending the request again on a fresh connection. `connectionHasInput` says whether the
  /// connection has bytes waiting before the request.
  func judge(_ facts: CurlConnectionFacts, resend: Bool, connectionHasInput: () -> Bool) -> CurlJudgement
  /// Whether the request may go on a plain http connection just before it is sent (`resend` as
  /// for `judge`). Two requirements rather than optional facts: an optional `CurlConnectionFacts`
  /// was destroyed through its metadata on every request.
  func judgePlain(resend: Bool) -> CurlJudgement
  /// A line of the response head; false stops the transfer.
  func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool
  /// Body bytes, decoded by libcurl.
  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> CurlBodyReceipt
  /// Fills `buffer` with the next bytes of a streamed request body.
  func sendBody(_ buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead
  /// Starts a streamed request body over (libcurl sends it again); false when it cannot be.
  func rewindBody() -> Bool
  /// Nothing moved either way for the request timeout once the request was sent: it stops.
  func idleTimeoutPassed()
  /// The job ended: the session makes its report, delivers it through the job's delivery and
  /// returns the waiting task's resumption.
  func end(_ end: CurlEnd) -> CurlDelivery.Resumption?
}

/// What the session decided about a connection.
package enum CurlJudgement: Sendable {
  /// Send the request, and keep `keeping` on the connection for the next request sent on it
  /// (``CurlConnectionFacts/keptVerdict``; nil keeps nothing).
  case proceed(keeping: (any AnyObject & Sendable)?)
  /// Stop before sending (the session records why).
  case stop
  /// Stop, and make the connection's TLS session unresumable: its chain was refused, so the next
  /// connection runs a full handshake and is judged on what the server presents then.
  case refuseConnection
}

/// What the session did with body bytes.
package enum CurlBodyReceipt: Sendable {
  case taken
  /// Not taken yet: libcurl holds them and offers them again when woken.
  case paused
  /// The transfer must stop (the session recorded why).
  case refused
}

/// What the session gave for a streamed request body.
package enum CurlBodyRead: Sendable, Equatable {
  case bytes(Int)
  case end
  /// Nothing ready yet; the job is woken (`CurlMultiLoop.resume`) when there is.
  case paused
  /// The body cannot go on (the session recorded why).
  case failed
}

/// The facts of the TLS connection a request is about to use, read from OpenSSL.
package struct CurlConnectionFacts {
  package enum Use: Sendable { case new, reused, resumed }
  package let use: Use
  /// The negotiated protocol version (0x0303 is TLS 1.2).
  package let protocolVersion: Int
  package let cipher: NegotiatedCipher?
  /// The protocol ALPN chose ("h2", "http/1.1").
  package let applicationProtocol: String?
  /// What the session kept of the chain OpenSSL verified for this TLS session
  /// (``CurlRequest/TLS/keepVerifiedChain``); nil when there is none.
  package let verified: AnyObject?
  /// What the session kept on the connection when it let the last request on it proceed.
  package var keptVerdict: (any AnyObject & Sendable)? = nil
}

/// How a job ended.
package enum CurlEnd {
  /// libcurl finished it, well or not.
  case finished(CurlCompletion)
  /// The requesting task cancelled it.
  case cancelled
  /// The session stopped.
  case sessionStopped
  /// It could not be handed to libcurl (why).
  case notStarted(reason: String)
}

/// libcurl's result for a finished job, and what the hooks saw of its connections.
package struct CurlCompletion: Sendable {
  package let result: CurlResult
  /// Why a TLS context could not be set up, when one could not.
  package let setupFailure: String?
  /// What the hooks saw of the handshake of the connection the job made, if any.
  package let handshake: HandshakeFailureFacts
  /// Whether the origin's TLS context was set up (a failure before it was an HTTPS proxy's).
  package let reachedOrigin: Bool
  /// Whether the request was (about to be) sent: the judgement point was reached.
  package let requestSent: Bool
  /// Whether the request was sent on a connection it was judged on; the two facts below are of
  /// that connection (false and nil without one). Not an optional tuple or struct: such an
  /// optional was copied through its metadata each time it was read (about 330 instructions).
  package let served: Bool
  /// Whether the server ended the serving connection with TLS close_notify.
  package let servingReceivedCloseNotify: Bool
  /// The protocol ALPN chose for the serving connection ("h2", "http/1.1").
  package let servingProtocol: String?
}
#endif
