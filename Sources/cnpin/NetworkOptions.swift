import CNPinning
import CNPinningSession
import Foundation

/// The options every network command shares: `--cafile`, `--resolve`, `--timeout`, and curl's
/// proxy options `-x/--proxy`, `--noproxy`, `--proxy-cacert`.
struct NetworkOptions {
  static let options: Set<String> = [
    "--cafile", "--resolve", "--timeout", "--proxy", "-x", "--noproxy", "--proxy-cacert", "--profile",
  ]

  /// The help text for these options.
  static let help = """
      --cafile, --cacert PEM
                            trust only the anchors in this file (default: the system store);
                            -k/--insecure is refused: cnpin never turns verification off
      --resolve HOST:PORT:ADDRESS
                            connect to ADDRESS for HOST:PORT (repeatable), as curl's
      --timeout SECONDS     give up connecting or waiting for data after this long (default 15)
      -x, --proxy URL       go through this proxy: [http://|https://][user:password@]host[:port];
                            without it https_proxy, all_proxy and no_proxy are used, as curl does
      --noproxy LIST        hosts (comma-separated, * for all) that bypass the proxy
      --proxy-cacert PEM    trust only these anchors for an https:// proxy
      --profile automatic|webpki|openssl
                            the certificate rules beyond OpenSSL's: the Web-PKI profile for the
                            system store only (automatic, the default), for every chain and its
                            anchor (webpki, the strict mode), or none (openssl)
    """

  let trust: CNTrust
  let configuration: CNPinnedSessionConfiguration

  /// `--cafile FILE`: only the certificates of that PEM bundle are trusted.
  static func anchors(inPEMFile path: String) throws(CLIError) -> CNTrust {
    let text = try InputFile.text(path, "--cafile \(path)")
    do {
      return .customAnchors(try CNCertificate.certificates(pemEncoded: text))
    } catch {
      throw .configuration("--cafile \(path): \(error)")
    }
  }

  /// `--profile`: which `CNCertificateProfile` judges each verified chain.
  private static func profile(_ arguments: Arguments) throws(CLIError) -> CNCertificateProfile {
    switch arguments.value("--profile") {
    case nil, "automatic"?: return .automatic
    case "webpki"?: return .webPKI
    case "openssl"?: return .openSSL
    case let other?: throw .usage("--profile takes automatic, webpki or openssl, not \"\(other)\"")
    }
  }

  /// `-x/--proxy URL` (with `--proxy-cacert` for an https proxy), else the environment's.
  private static func proxy(_ arguments: Arguments) throws(CLIError) -> CNProxy {
    let written = arguments.values("--proxy") + arguments.values("-x")
    guard let url = written.last else {
      guard arguments.value("--proxy-cacert") == nil else { throw .usage("--proxy-cacert needs -x/--proxy https://…") }
      return .environment
    }
    guard written.count == 1 else { throw .usage("give one -x/--proxy") }
    let trust = try arguments.value("--proxy-cacert").map(anchors(inPEMFile:)) ?? .system
    do {
      return try CNProxy(url: url, trust: trust)
    } catch {
      throw .usage("-x/--proxy: \(error)")
    }
  }

  init(_ arguments: Arguments) throws(CLIError) {
    trust = try arguments.value("--cafile").map(Self.anchors(inPEMFile:)) ?? .system
    var configuration = CNPinnedSessionConfiguration()
    configuration.trust = trust
    configuration.certificateProfile = try Self.profile(arguments)
    do {
      configuration.resolve = try arguments.values("--resolve").map { try CNHostOverride($0) }
    } catch {
      throw .usage("--resolve: \(error)")
    }
    configuration.proxy = try Self.proxy(arguments)
    if let list = arguments.value("--noproxy") {
      configuration.noProxy = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
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
