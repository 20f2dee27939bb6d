import Foundation

/// Where a manager keeps its last good enterprise policy and its anti-rollback mark across
/// launches, so that an app rescued from a lockout by a policy stays rescued when it restarts,
/// before it can fetch again: one file, written whole or not at all (a new file renamed over the
/// old), at most ``maximumSize`` bytes. The policy is kept as signed and verified again when it is
/// restored; the file holds nothing secret.
///
/// The file is JSON: `{"format": "cnpinning-policy-store-1", "policy": "<compact JWS>" or null,
/// "highWaterMark": {"issuedAt": <seconds since 1970>, "contentSHA256": "<base64>"} or null}`.
public struct CNPolicyStore: Sendable, Equatable {
  /// The file the store reads and writes.
  public let fileURL: URL

  /// The largest file read: a policy of the largest size accepted, and its mark.
  public static let maximumSize = CNEnterprisePolicy.maximumTokenSize + 4096
  static let format = "cnpinning-policy-store-1"

  /// A store in ``fileURL`` (its folder must exist; the file need not).
  public init(fileURL: URL) {
    self.fileURL = fileURL
  }

  /// What the file holds.
  struct Contents: Codable, Equatable {
    var format = CNPolicyStore.format
    var policy: String?
    var highWaterMark: CNPolicyHighWaterMark?
  }

  /// Why a store file is not read: it cannot be read now, or it holds no store.
  enum Problem: Error {
    case unreadable(String)
    case malformed(String)
  }

  /// The file's contents; nil when there is no file. A file that cannot be read (a FIFO, a
  /// device or a socket is refused at once) is `unreadable`; one larger than ``maximumSize`` or not
  /// a store of this format is `malformed`.
  func readContents() -> Result<Contents?, Problem> {
    guard FileManager.default.fileExists(atPath: fileURL.path) else { return .success(nil) }
    let data: Data
    do {
      data = try BoundedFile.read(fileURL, maximum: Self.maximumSize)
    } catch {
      return .failure(.unreadable("it cannot be read (\(error.localizedDescription))"))
    }
    guard data.count <= Self.maximumSize else { return .failure(.malformed("it is larger than \(Self.maximumSize) bytes")) }
    do {
      _ = try StrictJSON.parse(Array(data))
    } catch {
      return .failure(.malformed("it is not JSON: \(error.description)"))
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    guard let contents = try? decoder.decode(Contents.self, from: data) else {
      return .failure(.malformed("it is not a policy store (format, policy, highWaterMark)"))
    }
    guard contents.format == Self.format else {
      return .failure(.malformed("its format is \(VisibleText.quoted(contents.format)), not \(Self.format)"))
    }
    return .success(contents)
  }

  /// Writes `contents` whole, or leaves the file as it was.
  func write(_ contents: Contents) throws(CNPolicyError) {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      encoder.dateEncodingStrategy = .secondsSince1970
      try encoder.encode(contents).write(to: fileURL, options: .atomic)
    } catch {
      throw .policyStoreUnusable(path: fileURL.path, reason: "it cannot be written (\(error.localizedDescription))")
    }
  }
}

extension CNPinningManager {
  /// Restores what `store` keeps, at launch and before the first request: the anti-rollback mark
  /// is raised, and the policy, verified again, applied while its window lasts (one that expired
  /// is dropped from the file, the mark kept). No file: nothing happens. Throws
  /// `policyStoreUnusable` for a file that is not a store (the pins stay the app's own), and the
  /// policy's own refusal (`invalidSignature` for a policy the key does not verify, say). A file
  /// that exists but cannot be read now (under data protection before the device's first unlock,
  /// say) leaves the mark unknown: until a later restore reads it, no policy is applied, so that
  /// one signed out of is not applied again meanwhile.
  public func restoreEnterprisePolicy(from store: CNPolicyStore, at date: Date = Date()) throws {
    enterprise?.state.withLock { $0.store = store }
    let contents: CNPolicyStore.Contents?
    switch store.readContents() {
    case .success(let read):
      contents = read
      enterprise?.state.withLock { $0.markUnknown = nil }
    case .failure(.malformed(let reason)):
      throw CNPolicyError.policyStoreUnusable(path: store.fileURL.path, reason: reason)
    case .failure(.unreadable(let reason)):
      let error = CNPolicyError.policyStoreUnusable(
        path: store.fileURL.path,
        reason: "\(reason); its anti-rollback mark is unknown, so no policy is applied until it can be read")
      enterprise?.state.withLock { $0.markUnknown = error }
      throw error
    }
    guard let contents else { return }
    if let mark = contents.highWaterMark { raisePolicyHighWaterMark(to: mark) }
    guard let token = contents.policy else { return }
    do {
      if enterprisePolicy == nil {
        try applyEnterprisePolicy(with: Data(token.utf8), at: date)
      } else {
        try refreshEnterprisePolicy(with: Data(token.utf8), at: date)
      }
    } catch let error as CNPolicyError where error.code == .expired {
      try store.write(CNPolicyStore.Contents(policy: nil, highWaterMark: policyHighWaterMark))
    }
  }

  /// Keeps the applied policy (none after `signOut`) and the anti-rollback mark in `store`,
  /// replacing what it held; `signOut` then writes its mark there too. The mark written is the
  /// higher of the manager's and the file's, so a save never lowers it (one the manager could not
  /// restore, say). Throws `policyStoreUnusable` when the file cannot be written, or exists but
  /// cannot be read now (a file under data protection before the device's first unlock, a FIFO):
  /// it is then left as it is, its mark with it.
  public func saveEnterprisePolicy(to store: CNPolicyStore) throws {
    enterprise?.state.withLock { $0.store = store }
    var mark = policyHighWaterMark
    switch store.readContents() {
    case .success(let kept):
      if let kept = kept?.highWaterMark, kept.isAbove(mark) {
        mark = kept
        raisePolicyHighWaterMark(to: kept)
      }
    case .failure(.malformed):
      break  // Nothing to keep: replaced.
    case .failure(.unreadable(let reason)):
      throw CNPolicyError.policyStoreUnusable(
        path: store.fileURL.path, reason: "\(reason); it is not replaced, so that its mark is kept")
    }
    // A policy the kept mark refuses (signed out of in another process, say) is not kept.
    let refused = enterprisePolicy.map { policy in mark?.refusal(of: policy) != nil } ?? false
    let policy = refused ? nil : enterprisePolicyToken.map { String(decoding: $0, as: UTF8.self) }
    try store.write(CNPolicyStore.Contents(policy: policy, highWaterMark: mark))
  }
}
