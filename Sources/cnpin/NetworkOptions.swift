import CNPinning
import CNPinningSession
import Foundation

/// The options every network command shares: `--cafile`, `--resolve`, `--timeout`.
struct NetworkOptions {
  static let options: Set<String> = ["--cafile", "--resolve", "--timeout"]

  let trust: CNTrust
  let configuration: CNPinnedSessionConfiguration

  /// `--cafile FILE`: only the certificates of that PEM bundle are trusted.
  static func anchors(inPEMFile path: String) throws(CLIError) -> CNTrust {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw .usage("cannot read --cafile \(path): \(error.localizedDescription)")
    }
    do {
      return .customAnchors(try CNCertificate.certificates(pemEncoded: text))
    } catch {
      throw .usage("--cafile \(path): \(error)")
    }
  }

  init(_ arguments: Arguments) throws(CLIError) {
    trust = try arguments.value("--cafile").map(Self.anchors(inPEMFile:)) ?? .system
    var configuration = CNPinnedSessionConfiguration()
    do {
      configuration.resolve = try arguments.values("--resolve").map { try CNHostOverride($0) }
    } catch {
      throw .usage("--resolve: \(error)")
    }
    if let text = arguments.value("--timeout") {
      guard let seconds = TimeInterval(text), seconds > 0, seconds <= 86_400 else {
        throw .usage("--timeout needs a number of seconds between 0 and 86400, not \"\(text)\"")
      }
      configuration.timeoutIntervalForRequest = seconds
      configuration.timeoutIntervalForResource = max(seconds, 60)
    } else {
      configuration.timeoutIntervalForRequest = 15
    }
    self.configuration = configuration
  }

  func session(manager: CNPinningManager?) throws(CLIError) -> CNPinnedSession {
    do {
      return try CNPinnedSession(manager: manager, trust: trust, configuration: configuration)
    } catch {
      throw .usage("\(error)")
    }
  }
}

/// Loads a configuration file, or explains why it cannot be used (exit 2).
func loadDocument(_ path: String) throws(CLIError) -> CNPinningDocument {
  do {
    return try CNPinningDocument(contentsOf: URL(fileURLWithPath: path))
  } catch {
    throw .configuration("\(error)")
  }
}
