#if !CNPINNING_LINUX_BACKEND
import CNPinning
import Foundation

/// A `CNHTTPRequest`'s chunks as the `httpBodyStream` URLSession reads: the input of a bound
/// stream pair whose output a thread of its own writes, a chunk at a time, as URLSession reads
/// (a write blocks while the pair's buffer is full, so the producer waits for the network). A
/// failed sequence leaves the output open, held by the upload until its request has ended
/// (releasing the stream would close it), and is reported through `ChunkedUpload.onFailure`,
/// where the transport cancels the task: a body cut short is never ended as if whole.
enum ChunkStreamWriter {
  /// The pair's buffer, and so the most bytes written ahead of URLSession.
  static let bufferSize = 64 * 1024

  /// The stream for URLSession to read; writing starts when URLSession opens it and stops at the
  /// sequence's end, its failure, or when URLSession closes the stream (`ChunkPuller.drain`).
  static func stream(for upload: ChunkedUpload, host: String) -> InputStream? {
    var input: InputStream?
    var output: OutputStream?
    Stream.getBoundStreams(withBufferSize: bufferSize, inputStream: &input, outputStream: &output)
    guard let input, let output else { return nil }
    let writer = UncheckedOutput(stream: output, reader: input)
    let puller = upload.puller(host: host)
    let thread = Thread {
      writer.stream.open()
      let ended = puller.drain(
        until: { writer.reader.streamStatus != .notOpen },
        write: { chunk in ChunkPuller.writeAll(chunk) { writer.stream.write($0, maxLength: $1) } },
        close: { writer.stream.close() })
      // Left open, and kept open past this thread, when the sequence failed.
      if !ended { upload.keep(writer) }
    }
    thread.name = "CNPChunkStream"
    thread.start()
    return input
  }
}

/// The output stream, handed to its one writing thread, and the input URLSession reads (of
/// which the writer reads only the status).
// Unchecked Sendable: only the writing thread uses the streams once they have been handed over.
private struct UncheckedOutput: @unchecked Sendable {
  let stream: OutputStream
  let reader: InputStream
}
#endif
