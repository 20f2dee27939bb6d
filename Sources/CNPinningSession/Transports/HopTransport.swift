import CNPinning
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange as `CNPinnedSession` hands it to its transport, with everything decided
/// about it before the network: its checked target, the pins in force when it started, the
/// transport-security rules for its host and where its body goes.
struct Hop {
  let request: URLRequest
  let target: RequestTarget
  let manager: CNPinningManager?
  /// The transport-security rules for the host (and whether an exception set them); nil when
  /// the policy is off.
  let requirements: (rules: CNTransportSecurityException, isException: Bool)?
  /// A body to stream instead of the request's `httpBody`.
  let upload: UploadSource?
  let destination: BodyDestination
  /// Credential headers that must not be sent (the configuration's included).
  let withheld: CredentialHeaders?
  /// Where the hop's cookies come from and its response's go.
  let cookies: HTTPCookieStorage?
  let progress: CNTransferProgress?
  /// Whether an observer wants the certificates the server presented.
  let wantsPresentedChain: Bool
  /// A handshake without a request (`probe`).
  let connectOnly: Bool
}

/// What a transport reports of one hop: the outcome, every verdict on its connections (for the
/// observer events and failure reports that follow, whatever the outcome), and, on Linux, the
/// time libcurl's side took.
struct HopReport: Sendable {
  let outcome: Result<TransferOutcome, CNPinnedSessionError>
  let judgements: [Judgement]
  /// Nanoseconds from handing the hop to libcurl's side to its report; nil where the
  /// platform's URLSession does the work.
  let networkTime: UInt64?
}

/// What one HTTP exchange produced (redirects are separate exchanges).
struct TransferOutcome: Sendable {
  let response: HTTPURLResponse
  let body: Data
}

/// The seam between `CNPinnedSession` and the platform that moves its bytes: libcurl and
/// OpenSSL on Linux (`CurlTransport`), URLSession on Apple platforms (`URLSessionTransport`).
/// The session decides everything that needs no network (targets, the unpinned-host rule, plain
/// http to pinned hosts, redirects, effects); a transport runs one hop and says what happened.
protocol HopTransport: Sendable {
  /// Runs one hop. Cancelling the calling task cancels it.
  func exchange(_ hop: Hop) async -> HopReport
  /// Fails every hop in flight with `sessionInvalidated`; later hops fail the same way.
  func invalidate()
  /// The name of the network thread, for diagnostics (empty where URLSession has its own).
  var threadName: String { get }
  /// How many transfers ran on their requesting task's thread, for tests (0 where URLSession
  /// runs them).
  var borrowedTransfers: Int { get }
}

#if CNPINNING_LINUX_BACKEND
/// The transport of this platform.
typealias PlatformTransport = CurlTransport
#else
/// The transport of this platform.
typealias PlatformTransport = URLSessionTransport
#endif
