import Foundation

extension CNPinnedSession {
  /// A response body read as it arrives, from ``bytes(for:)``: a byte at a time
  /// (`for try await byte in bytes`, the shape of `URLSession.AsyncBytes`) or a chunk at a time
  /// (`chunks`). The transfer waits while the reader does, so memory stays bounded; dropping
  /// every copy of the sequence and its iterators stops the transfer. Read it once.
  public struct AsyncBytes: AsyncSequence, Sendable {
    /// A byte of the body.
    public typealias Element = UInt8
    private let reader: BodyReader

    init(_ channel: ResponseBodyChannel) { reader = BodyReader(channel) }

    /// The body a chunk at a time, as the network delivers it.
    public var chunks: Chunks { Chunks(reader: reader) }

    /// An iterator over the body's bytes.
    public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    /// Reads the body a byte at a time. Throws ``CNPinnedSessionError``.
    public struct Iterator: AsyncIteratorProtocol {
      fileprivate let reader: BodyReader
      private var chunk = Data()
      private var index = 0

      fileprivate init(reader: BodyReader) { self.reader = reader }

      /// The next byte, or nil at the end of the body.
      public mutating func next() async throws -> UInt8? {
        while index == chunk.endIndex {
          let next: Data?
          if let ready = reader.channel.readyChunk() { next = try ready.get() } else { next = try await reader.channel.next() }
          guard let next else { return nil }
          chunk = next
          index = next.startIndex
        }
        defer { index += 1 }
        return chunk[index]
      }
    }

    /// The body as the chunks the network delivers.
    public struct Chunks: AsyncSequence, Sendable {
      /// A piece of the body, as the network delivered it.
      public typealias Element = Data
      fileprivate let reader: BodyReader

      /// An iterator over the body's pieces.
      public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

      /// Reads the body a chunk at a time. Throws ``CNPinnedSessionError``.
      public struct Iterator: AsyncIteratorProtocol {
        fileprivate let reader: BodyReader

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws -> Data? {
          if let ready = reader.channel.readyChunk() { return try ready.get() }
          return try await reader.channel.next()
        }
      }
    }
  }
}

/// Owns a streamed body for its readers: when the last of them is gone, the transfer stops.
private final class BodyReader: Sendable {
  let channel: ResponseBodyChannel
  init(_ channel: ResponseBodyChannel) { self.channel = channel }
  deinit { channel.stop(.cancelled) }
}

// An iterator is one reader's position in the body, used by one task, as URLSession's are.
@available(*, unavailable)
extension CNPinnedSession.AsyncBytes.Iterator: Sendable {}
@available(*, unavailable)
extension CNPinnedSession.AsyncBytes.Chunks.Iterator: Sendable {}
