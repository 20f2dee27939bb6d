import CNPinning
import CNPinningSession
import Foundation

/// The options every network command shares: `--cafile`, `--resolve`, `--timeout`, and curl's
/// proxy options `-x/--proxy`, `--noproxy`, `--proxy-cacert`.
struct NetworkOptions {
  /// In the order the help lists them.
  static let all: [Option] = [.cafile, .resolve, .timeout, .proxy, .noProxy, .proxyCAFile, .profile]

  let trust: CNTrust
  let configuration: CNPinnedSessionConfiguration

  /// `--cafile FILE` (or another option's file): only the certificates of that PEM bundle are trusted.
  static func anchors(inPEMFile path: String, option: Option = .cafile) throws(CLIError) -> CNTrust {
    let text = try InputFile.text(path, "\(option) \(path)")
    do {
      return .customAnchors(try CNCertificate.certificates(pemEncoded: text))
    } catch {
      throw .configuration("\(option) \(path): \(error)")
    }
  }

  /// `--profile`: which `CNCertificateProfile` judges each verified chain.
  private static func profile(_ arguments: Arguments) throws(CLIError) -> CNCertificateProfile {
    switch arguments.value(.profile) {
    case nil, "automatic"?: return .automatic
    case "webpki"?: return .webPKI
    case "openssl"?: return .openSSL
    case let other?: throw .usage("\(Option.profile) takes automatic, webpki or openssl, not \"\(other)\"")
    }
  }

  /// `-x/--proxy URL` (with `--proxy-cacert` for an https proxy), else the environment's.
  private static func proxy(_ arguments: Arguments) throws(CLIError) -> CNProxy {
    let written = arguments.values(.proxy)
    guard let url = written.last else {
      guard arguments.value(.proxyCAFile) == nil else {
        throw .usage("\(Option.proxyCAFile) needs \(Option.proxy.spellings) https://…")
      }
      return .environment
    }
    guard written.count == 1 else { throw .usage("give one \(Option.proxy.spellings)") }
    let trust =
      try arguments.value(.proxyCAFile).map { path throws(CLIError) in try anchors(inPEMFile: path, option: .proxyCAFile) }
      ?? .system
    do {
      return try CNProxy(url: url, trust: trust)
    } catch {
      throw .usage("\(Option.proxy.spellings): \(error)")
    }
  }

  init(_ arguments: Arguments) throws(CLIError) {
    trust = try arguments.value(.cafile).map { path throws(CLIError) in try Self.anchors(inPEMFile: path) } ?? .system
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = trust
    configuration.certificateProfile = try Self.profile(arguments)
    do {
      configuration.resolve = try arguments.values(.resolve).map { try CNHostOverride($0) }
    } catch {
      throw .usage("\(Option.resolve): \(error)")
    }
    configuration.proxy = try Self.proxy(arguments)
    if let list = arguments.value(.noProxy) {
      configuration.noProxy = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
    if let text = arguments.value(.timeout) {
      guard let seconds = TimeInterval(text), seconds > 0, seconds <= 86_400 else {
        throw .usage("\(Option.timeout) needs a number of seconds between 0 and 86400, not \"\(text)\"")
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
      return try CNPinnedSession(manager: manager, configuration: configuration)
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
