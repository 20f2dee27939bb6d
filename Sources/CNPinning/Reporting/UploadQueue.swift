import Foundation

/// Failure-report uploads kept on disk until their collector takes them, so that the reports of a
/// lockout outlive the launch that saw it (issue 54, item 2): one file per upload in a folder the
/// app names (`CNPinningReporter(…keepingUploadsIn:)`), each written whole or not at all (a new
/// file renamed into place), at most ``maximumCount`` files and ``maximumBytes`` bytes (the oldest go
/// first), each sent again as ``UploadRetryPolicy`` says. A file that cannot be read as one of these is logged, named, and
/// removed: it never stops a launch. Thread-safe; shared by every session of a reporter, which
/// never sends one upload twice at once.
package final class UploadQueue: Sendable {
  /// At most this many uploads are kept.
  package static let maximumCount = 100
  /// At most this many bytes of files are kept.
  package static let maximumBytes = 1 << 20
  static let format = "cnpinning-upload-1"
  static let suffix = ".upload.json"

  /// One kept upload: where it goes, what it sends, how often it failed and when it may go again.
  package struct Entry: Codable, Equatable, Sendable {
    var format = UploadQueue.format
    package let url: URL
    package let body: Data
    package let queuedAt: Date
    package var attempts: Int
    package var notBefore: Date
  }

  /// The folder's URL.
  package let directory: URL
  /// The uploads being sent now, by file name.
  private let sending = Locked<Set<String>>([])

  /// A queue in `directory`, created (owner-only) when it is missing.
  package init(directory: URL) {
    self.directory = directory
  }

  /// Keeps an upload of `body` to `url`, marked as being sent, and returns its name; nil when
  /// it cannot be written (logged). Makes room first: the oldest files go.
  package func add(_ body: Data, to url: URL, at now: Date = Date()) -> String? {
    let entry = Entry(url: url, body: body, queuedAt: now, attempts: 0, notBefore: now)
    let name = String(format: "%020llu", now.boundedEpochNanoseconds) + "-" + UUID().uuidString + Self.suffix
    guard let data = Self.encode(entry), data.count <= Self.maximumBytes else { return nil }
    // Marked as being sent before it appears, so that another session's `takeDue` never sends
    // it a second time meanwhile.
    sending.withLock { _ = $0.insert(name) }
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      makeRoom(for: data.count)
      try data.write(to: directory.appendingPathComponent(name), options: .atomic)
    } catch {
      sending.withLock { _ = $0.remove(name) }
      CNPinningLog.warn("cannot keep a failure report upload in \(directory.path): \(error.localizedDescription)")
      return nil
    }
    return name
  }

  /// The kept uploads due at `now` that no one is sending, oldest first, each marked as being
  /// sent now. Unreadable files are logged and removed.
  package func takeDue(at now: Date = Date()) -> [(name: String, entry: Entry)] {
    entries().filter { $0.entry.notBefore <= now }.filter { item in
      sending.withLock { $0.insert(item.name).inserted }
    }
  }

  /// When the next kept upload is due; nil when none is kept.
  package func nextDue() -> Date? { entries().map(\.entry.notBefore).min() }

  /// The collector took the upload: it goes.
  package func delivered(_ name: String) {
    remove(name)
    sending.withLock { _ = $0.remove(name) }
  }

  /// A send failed: kept for another try when `retryable` and ``UploadRetryPolicy`` gives it
  /// one, removed otherwise.
  package func failed(_ name: String, retryable: Bool, at now: Date = Date()) {
    defer { sending.withLock { _ = $0.remove(name) } }
    guard let entry = read(name) else { return }
    var next = entry
    next.attempts += 1
    guard
      let again = UploadRetryPolicy.nextTry(
        afterAttempts: next.attempts, retryable: retryable, queuedAt: entry.queuedAt, at: now),
      let data = Self.encode(next.withNotBefore(again))
    else {
      remove(name)
      return
    }
    do {
      try data.write(to: directory.appendingPathComponent(name), options: .atomic)
    } catch {
      CNPinningLog.warn("cannot keep a failure report upload in \(directory.path): \(error.localizedDescription)")
    }
  }

  /// Every kept upload, oldest first (names start with the time they were queued).
  private func entries() -> [(name: String, entry: Entry)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(Self.suffix) }.sorted().compactMap { name in read(name).map { (name, $0) } }
  }

  /// The upload in `name`; nil (the file logged and removed) when it is not one.
  private func read(_ name: String) -> Entry? {
    let url = directory.appendingPathComponent(name)
    // Gone meanwhile, or unreadable: nothing to send.
    guard let data = try? BoundedFile.read(url, maximum: Self.maximumBytes) else { return nil }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    guard data.count <= Self.maximumBytes, (try? StrictJSON.parse(Array(data))) != nil,
      let entry = try? decoder.decode(Entry.self, from: data), entry.format == Self.format,
      entry.url.scheme?.lowercased() == "https", entry.attempts >= 0
    else {
      CNPinningLog.warn("\(url.path) is not a kept failure report upload (\(Self.format)); removed")
      remove(name)
      return nil
    }
    return entry
  }

  /// Removes the oldest files until one of `bytes` more fits both bounds. Sizes are read by
  /// reading the files (at most ``maximumBytes`` in all), not by asking for their metadata.
  private func makeRoom(for bytes: Int) {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
      $0.hasSuffix(Self.suffix)
    }.sorted()
    var sizes = names.map { name in
      (name, (try? BoundedFile.read(directory.appendingPathComponent(name), maximum: Self.maximumBytes))?.count ?? 0)
    }
    var total = sizes.reduce(0) { $0 + $1.1 }
    while !sizes.isEmpty && (sizes.count + 1 > Self.maximumCount || total + bytes > Self.maximumBytes) {
      let (oldest, size) = sizes.removeFirst()
      remove(oldest)
      total -= size
    }
  }

  private func remove(_ name: String) {
    try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
  }

  private static func encode(_ entry: Entry) -> Data? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .secondsSince1970
    return try? encoder.encode(entry)
  }
}

extension UploadQueue.Entry {
  fileprivate func withNotBefore(_ date: Date) -> Self {
    var copy = self
    copy.notBefore = date
    return copy
  }
}
