#if CNPINNING_LINUX_BACKEND
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A request body sent as libcurl asks for it, never held whole in memory: a file read from
/// disk, or an `InputStream` read by a thread of its own into a small buffer.
///
/// `read` is called on the session's network thread; when nothing is ready it says so
/// (`.paused`) and the body calls `wake` once something is.
protocol StreamedRequestBody: AnyObject, Sendable {
  /// The body's length in bytes, when known before sending (else it is sent chunked on HTTP/1.1).
  var length: Int? { get }
  /// Connects the transport: `wake` asks it to read again after a pause. A closed body keeps
  /// nothing (the transport's closure holds the job strongly).
  func connect(wake: @escaping @Sendable () -> Void)
  /// Copies the next bytes into `buffer`.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead
  /// Starts the body over (libcurl resends it on a fresh connection); false when it cannot.
  func rewind() -> Bool
  /// The request is over: release the file or stop reading the stream.
  func close()
}

/// What `StreamedRequestBody.read` produced.
enum BodyRead: Equatable {
  case bytes(Int)
  case end
  /// Nothing ready yet; `wake` follows.
  case paused
  /// The body cannot go on: the request fails with this.
  case failed(CNPinnedSessionError)
}

/// A file sent as a request body, read on the network thread (a regular file does not block).
// Unchecked Sendable: read only by the driver; the file handle is set in init.
final class FileRequestBody: StreamedRequestBody, @unchecked Sendable {
  let length: Int?
  private let handle: FileHandle
  private let path: String
  private let host: String

  /// Opens `url`, sent to `host`; fails with the reason when it cannot be read.
  init(url: URL, host: String) throws(CNPinnedSessionError) {
    path = url.path
    self.host = host
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .invalidArgument("cannot read the upload file \(url.path): \(Self.lastError())") }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      Glibc.close(descriptor)
      throw .invalidArgument("the upload file \(url.path) is not a regular file")
    }
    handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    length = Int(status.st_size)
  }

  func connect(wake: @escaping @Sendable () -> Void) {}

  func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
    let count = Glibc.read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
    if count > 0 { return .bytes(count) }
    return count == 0
      ? .end : .failed(.transferFailed(host: host, reason: "cannot read the upload file \(path): \(Self.lastError())"))
  }

  func rewind() -> Bool { lseek(handle.fileDescriptor, 0, SEEK_SET) == 0 }

  func close() {}

  private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// An `InputStream` sent as a request body. A thread of its own reads it (a stream may block
/// while its producer works) into at most `capacity` bytes that the network thread takes from;
/// it stops when the request is over. A stream can be read once, so it cannot be rewound.
// Unchecked Sendable: the buffer is behind the NSCondition; the reading thread and the driver meet only there.
final class InputStreamRequestBody: StreamedRequestBody, @unchecked Sendable {
  static let capacity = 256 * 1024
  private static let chunkSize = 64 * 1024
  let length: Int?
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var chunks: [Data] = []
  /// How much of `chunks[0]` was already sent.
  private var offset = 0
  private var buffered = 0
  private var ended = false
  private var failure: CNPinnedSessionError?
  private var closed = false
  private var paused = false
  private var wake: (@Sendable () -> Void)?

  /// Starts reading `stream` (opened here), sent to `host`. `length`: from the request's
  /// `Content-Length`, if any.
  init(stream: UploadSource.BodyStream, length: Int?, host: String) {
    self.length = length
    let thread = Thread { [self] in pump(stream.stream, host: host) }
    thread.name = "CNPBodyStream"
    thread.start()
  }

  func connect(wake: @escaping @Sendable () -> Void) {
    condition.lock()
    if !closed { self.wake = wake }
    condition.unlock()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
    condition.lock()
    defer { condition.unlock() }
    guard let chunk = chunks.first else {
      if let failure { return .failed(failure) }
      if ended { return .end }
      paused = true
      return .paused
    }
    let count = min(buffer.count, chunk.count - offset)
    chunk.withUnsafeBytes { bytes in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
    }
    offset += count
    buffered -= count
    if offset == chunk.count {
      chunks.removeFirst()
      offset = 0
    }
    condition.signal()
    return .bytes(count)
  }

  func rewind() -> Bool { false }

  func close() {
    condition.lock()
    closed = true
    wake = nil
    condition.broadcast()
    condition.unlock()
  }

  private func pump(_ stream: InputStream, host: String) {
    stream.open()
    defer { stream.close() }
    var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
    while true {
      condition.lock()
      while buffered >= Self.capacity && !closed { condition.wait() }
      let stop = closed
      condition.unlock()
      if stop { return }
      let count = stream.read(&buffer, maxLength: buffer.count)
      condition.lock()
      if count > 0 {
        chunks.append(Data(buffer[0..<count]))
        buffered += count
      } else if count == 0 {
        ended = true
      } else {
        failure = .transferFailed(
          host: host,
          reason: "cannot read the request's httpBodyStream: \(stream.streamError.map { "\($0)" } ?? "unknown error")")
      }
      let wake = paused ? self.wake : nil
      paused = false
      condition.unlock()
      wake?()
      if count <= 0 { return }
    }
  }
}
#endif
