#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation
import Security

/// A stream's task delegate: its body as it arrives (`StreamBodyDelegate`, shared) and its
/// server-trust challenges. Not final only so that `make apple-check` can check its methods'
/// signatures by overriding them.
// Unchecked Sendable: adds only an immutable reference to its superclass, whose reason holds.
class PinningStreamDelegate: StreamBodyDelegate, @unchecked Sendable {
  private let challenges: PinningChallenges

  init(
    challenges: PinningChallenges, upload: UploadSource?, channel: ResponseBodyChannel, limit: Int,
    progress: CNTransferProgress?, translate: @escaping @Sendable (Error) -> CNPinnedSessionError,
    respond: @escaping @Sendable (Result<HTTPURLResponse, CNPinnedSessionError>, Int) async -> Bool
  ) {
    self.challenges = challenges
    super.init(
      host: challenges.settings.host, rejection: { challenges.rejection }, upload: upload, channel: channel, limit: limit,
      progress: progress, translate: translate, respond: respond)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
    -> (URLSession.AuthChallengeDisposition, URLCredential?)
  {
    await challenges.answer(challenge, task: task)
  }
}
#endif
