#if CNPINNING_LINUX_BACKEND
@_spi(Locking) import CNPinning
import Foundation

/// A caller's sequence of chunks (``CNHTTPRequest/Body``) sent as libcurl asks for it: a task
/// pulls the next chunk while libcurl sends the one before, so at most two chunks are held, and
/// `read` never waits (it answers `.paused`, and `wake` follows when a chunk has come). A failed
/// sequence aborts the transfer; a sequence is read once, so the body cannot be rewound.
// Unchecked Sendable: everything mutable is behind `state`; `upload` is read by the one task at a time that pulls.
final class ChunkedRequestBody: StreamedRequestBody, @unchecked Sendable {
  var length: Int? { upload.length }
  private let upload: ChunkedUpload
  private let host: String
  private let state = Locked(State())

  private struct State {
    /// The chunk being sent and how much of it has gone.
    var current = Data()
    var offset = 0
    /// The chunk pulled while the current one is sent.
    var next: Data?
    var pulling: Task<Void, Never>?
    var ended = false
    var failure: CNPinnedSessionError?
    var paused = false
    var closed = false
    var wake: (@Sendable () -> Void)?
  }

  init(upload: ChunkedUpload, host: String) {
    self.upload = upload
    self.host = host
  }

  func connect(wake: @escaping @Sendable () -> Void) {
    state.withLock { state in if !state.closed { state.wake = wake } }
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
    state.withLock { state -> BodyRead in
      if state.offset == state.current.count, let next = state.next {
        state.current = next
        state.offset = 0
        state.next = nil
      }
      guard state.offset < state.current.count else {
        if let failure = state.failure { return .failed(failure) }
        if state.ended { return .end }
        state.paused = true
        pullIfIdle(&state)
        return .paused
      }
      let count = min(buffer.count, state.current.count - state.offset)
      let offset = state.offset
      state.current.withUnsafeBytes { bytes in
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
      }
      state.offset += count
      pullIfIdle(&state)
      return .bytes(count)
    }
  }

  func rewind() -> Bool { false }

  func close() {
    let pulling = state.withLock { state -> Task<Void, Never>? in
      state.closed = true
      state.wake = nil
      defer { state.pulling = nil }
      return state.pulling
    }
    pulling?.cancel()
  }

  /// Starts pulling the chunk after the current one, unless one is held or on its way.
  private func pullIfIdle(_ state: inout State) {
    guard state.pulling == nil, state.next == nil, !state.ended, state.failure == nil, !state.closed else { return }
    state.pulling = Task { [upload, host] in
      let pulled: Result<Data?, CNPinnedSessionError>
      do throws(CNPinnedSessionError) {
        pulled = .success(try await upload.next(host: host))
      } catch {
        pulled = .failure(error)
      }
      self.received(pulled)
    }
  }

  private func received(_ pulled: Result<Data?, CNPinnedSessionError>) {
    let wake = state.withLock { state -> (@Sendable () -> Void)? in
      state.pulling = nil
      guard !state.closed else { return nil }
      switch pulled {
      case .success(let chunk?): state.next = chunk
      case .success(nil): state.ended = true
      case .failure(let error): state.failure = error
      }
      defer { state.paused = false }
      return state.paused ? state.wake : nil
    }
    wake?()
  }
}
#endif
