import CNPinning
import CNPinningSession
import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cnpin get URL --config FILE`: fetch through a pinned session, like curl.
enum GetCommand {
  static let spec = ArgumentSpec(
    flags: ["--json", "-v", "--deny-unpinned", "--help", "-h"],
    options: NetworkOptions.options.union(["--config", "-X", "-H", "-d", "-o"]), positionals: 1...1,
    positionalName: "URL")

  static let help = """
    Usage: cnpin get URL --config FILE [--cafile PEM] [-X METHOD] [-H 'Name: value'] [-d DATA|@FILE]
                     [-o FILE] [-v] [--deny-unpinned] [--resolve HOST:PORT:ADDRESS] [--timeout SECONDS] [-x PROXY] [--json]

    Fetches URL through CNPinnedSession with the pins of FILE: the body goes to standard output
    (or -o FILE). -d sends DATA (or the contents of FILE) and makes the default method POST.
    -v prints each connection's verified chain and pin decision, and the response head, on
    standard error. --deny-unpinned refuses hosts the configuration does not pin. --json prints a
    JSON summary (status, headers, body size, connections) instead of the body.

    Network options:
    \(NetworkOptions.help)

    Exit status: 0 a response arrived (whatever its status); 1 a pin or verification failed;
    2 usage or configuration error; 3 network error.

    Examples:
      cnpin get https://api.example.com/v1/status --config pins.json -v
      cnpin get https://api.test:8443/upload --config pins.json --cafile ca.pem -d @body.json -H 'Content-Type: application/json'
    """

  struct ConnectionReport: Encodable {
    let host: String
    let port: Int
    let reused: Bool
    let verifiedChain: [String?]
    let decision: String
  }

  struct Report: Encodable {
    let url: String
    let status: Int
    let headers: [String: String]
    let bodyBytes: Int
    let connections: [ConnectionReport]
  }

  static func run(_ words: [String]) async throws(CLIError) {
    let arguments = try spec.parse(words)
    guard let path = arguments.value("--config") else { throw .usage("missing --config FILE") }
    guard let url = URL(string: arguments.positionals[0]), url.host != nil,
      ["http", "https"].contains(url.scheme?.lowercased() ?? "")
    else { throw .usage("\"\(arguments.positionals[0])\" is not an http or https URL") }
    let manager = CNPinningManager(document: try loadDocument(path))
    let network = try NetworkOptions(arguments)
    let session: CNPinnedSession
    do {
      var configuration = network.configuration
      configuration.unpinnedHosts = arguments.has("--deny-unpinned") ? .deny : .allow
      session = try CNPinnedSession(manager: manager, configuration: configuration)
    } catch {
      throw .usage("\(error)")
    }
    let request = try makeRequest(url, arguments)
    let verbose = arguments.has("-v")
    let connections = Locked<[ConnectionReport]>([])
    session.setConnectionObserver { event in
      let report = ConnectionReport(
        host: event.host, port: event.port, reused: event.isReusedConnection,
        verifiedChain: event.verifiedChain.reversed().map(\.commonName), decision: describe(event))
      connections.withLock { $0.append(report) }
      if verbose {
        Output.error("* \(describeConnection(event))")
        if !event.verifiedChain.isEmpty {
          Output.error(
            "*   verified chain (root → leaf): " + report.verifiedChain.map { $0 ?? "(no usable CN)" }.joined(separator: " → "))
        }
        Output.error("*   \(report.decision)")
      }
    }

    var data = Data()
    let response: HTTPURLResponse
    let bodyBytes: Int
    do {
      if let output = arguments.value("-o") {
        // To a file: streamed to disk, with a progress meter when standard error is a terminal.
        let progress = CNTransferProgress()
        let meter = isatty(STDERR_FILENO) == 1 ? ProgressMeter.start(progress) : nil
        let result: Result<(URL, HTTPURLResponse), Error>
        do {
          result = .success(try await session.download(for: request, progress: progress))
        } catch {
          result = .failure(error)
        }
        await meter?.finish()
        let (file, downloaded) = try result.get()
        response = downloaded
        bodyBytes = progress.receivedBytes
        try place(file, at: output)
      } else {
        (data, response) = try await session.data(for: request)
        bodyBytes = data.count
      }
    } catch let error as CNPinnedSessionError {
      throw CLIError.from(error)
    } catch let error as CLIError {
      throw error
    } catch {
      throw .network("\(error)")
    }
    if verbose {
      Output.error("< \(response.statusCode)")
      for (name, value) in response.allHeaderFields.sorted(by: { "\($0.key)" < "\($1.key)" }) {
        Output.error("< \(name): \(value)")
      }
    }
    if arguments.has("--json") {
      let headers = Dictionary(uniqueKeysWithValues: response.allHeaderFields.map { ("\($0.key)", "\($0.value)") })
      Output.print(
        Output.json(
          Report(
            url: response.url?.absoluteString ?? url.absoluteString, status: response.statusCode, headers: headers,
            bodyBytes: bodyBytes, connections: connections.withLock { $0 })))
    } else if arguments.value("-o") == nil {
      Output.write(data)
    }
  }

  /// Moves a finished download to `path`, replacing what is there (as curl -o does).
  private static func place(_ file: URL, at path: String) throws(CLIError) {
    let target = URL(fileURLWithPath: path)
    do {
      if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
      try FileManager.default.moveItem(at: file, to: target)
    } catch {
      try? FileManager.default.removeItem(at: file)
      throw .usage("cannot write \(path): \(error.localizedDescription)")
    }
  }

  /// "connected to api.test:443 (new connection, TLS 1.3, HTTP/2)", "… (TLS session resumed, …)",
  /// "reusing connection to …".
  static func describeConnection(_ event: CNConnectionEvent) -> String {
    let how = event.isReusedConnection ? "reused connection" : event.isResumedSession ? "TLS session resumed" : "new connection"
    let details = [how, event.tlsVersion?.description, event.httpVersion].compactMap { $0 }.joined(separator: ", ")
    return "\(event.isReusedConnection ? "reusing connection" : "connected") to \(event.host):\(event.port) (\(details))"
  }

  private static func describe(_ event: CNConnectionEvent) -> String {
    switch (event.pinning, event.error) {
    case (_, let error?): return "refused: \(error)"
    case (.accepted(let match)?, nil): return "pins: accepted by \(describeMatch(match))"
    case (.reportOnly(let failure)?, nil):
      return "pins: NOT satisfied, allowed because the configuration is report-only: \(failure)"
    case (.notPinned?, nil): return "pins: host not pinned (normal TLS validation only)"
    default: return "pins: no decision"
    }
  }

  private static func makeRequest(_ url: URL, _ arguments: Arguments) throws(CLIError) -> URLRequest {
    var request = URLRequest(url: url)
    if let body = arguments.value("-d") {
      if body.hasPrefix("@") {
        do {
          request.httpBody = try Data(contentsOf: URL(fileURLWithPath: String(body.dropFirst())))
        } catch {
          throw .usage("cannot read -d \(body): \(error.localizedDescription)")
        }
      } else {
        request.httpBody = Data(body.utf8)
      }
      request.httpMethod = "POST"
      request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    }
    if let method = arguments.value("-X") { request.httpMethod = method }
    for header in arguments.values("-H") {
      guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
        throw .usage("-H needs 'Name: value', not \"\(header)\"")
      }
      request.setValue(
        header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces),
        forHTTPHeaderField: String(header[..<colon]))
    }
    return request
  }
}
