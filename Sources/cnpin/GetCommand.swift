@_spi(Locking) import CNPinning
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
    command: "get",
    forms: [["URL", .option(.config)]],
    options: [
      .config, .method, .header, .data, .output, .clobber, .verbose, .include, .silent, .location, .maxRedirects,
      .denyUnpinned, .json.explained("a JSON summary (status, headers, body size, connections) instead of the body"),
    ] + NetworkOptions.all,
    positionals: 1...1,
    positionalName: "URL")

  static let help = Help.text(
    [spec],
    about: """
      Fetches URL through CNPinnedSession with the pins of FILE: the body goes to standard output
      (escaped when that is a terminal) or to -o FILE. Redirects are followed, each hop judged by
      its own host's pins.
      """,
    footer: """
      Exit status: 0 a response arrived (whatever its status); 1 a pin or verification failed;
      2 usage or configuration error; 3 network error.

      Examples:
        cnpin get https://api.example.com/v1/status --config pins.json -v
        cnpin get https://api.test:8443/upload --config pins.json --cafile ca.pem -d @body.json -H 'Content-Type: application/json'
      """)

  struct ConnectionReport: Encodable {
    let host: String
    let port: Int
    let reused: Bool
    let verifiedChain: [String?]
    let decision: String
    /// "HTTP/2", "HTTP/1.1" (for -i's status line), when known.
    let httpVersion: String?
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
    guard let path = arguments.value(.config) else { throw .usage("missing --config FILE") }
    guard let url = URL(string: arguments.positionals[0]), url.host != nil,
      ["http", "https"].contains(url.scheme?.lowercased() ?? "")
    else { throw .usage("\"\(arguments.positionals[0])\" is not an http or https URL") }
    let manager = CNPinningManager(document: try loadDocument(path))
    let network = try NetworkOptions(arguments)
    let session: CNPinnedSession
    do {
      var configuration = network.configuration
      configuration.unpinnedHosts = arguments.has(.denyUnpinned) ? .deny : .allow
      if let text = arguments.value(.maxRedirects) {
        guard let limit = Int(text), (0...1000).contains(limit) else {
          throw CLIError.usage("\(Option.maxRedirects) needs a number from 0 to 1000, not \"\(text)\"")
        }
        configuration.followsRedirects = limit > 0
        configuration.maximumRedirects = max(limit, 1)
      }
      session = try CNPinnedSession(manager: manager, configuration: configuration)
    } catch let error as CLIError {
      throw error
    } catch {
      throw .usage("\(error)")
    }
    let request = try makeRequest(url, arguments)
    let verbose = arguments.has(.verbose)
    let connections = Locked<[ConnectionReport]>([])
    session.setConnectionObserver { event in
      let report = ConnectionReport(
        host: event.host, port: event.port, reused: event.kind == .reused,
        verifiedChain: CertificateChain(leafFirst: event.verifiedChain).rootFirst.map(\.commonName),
        decision: describe(event, nearMiss: manager.nearestPinnedDomain(to: event.host)), httpVersion: event.httpVersion)
      connections.withLock { $0.append(report) }
      if verbose {
        Output.error("* \(describeConnection(event))")
        if !event.verifiedChain.isEmpty {
          Output.error(
            "*   verified chain (root → leaf): "
              + CertificateChain(leafFirst: event.verifiedChain).rootFirst.map { Output.value($0.displayName) }
              .joined(separator: " → "))
        }
        Output.error("*   \(report.decision)")
      }
    }

    let clobber = arguments.has(.clobber)
    if let output = arguments.value(.output) { try checkOutput(output, clobber: clobber) }
    var data = Data()
    let response: HTTPURLResponse
    let bodyBytes: Int
    do {
      if let output = arguments.value(.output) {
        // To a file: streamed to disk, with a progress meter when standard error is a terminal.
        let progress = CNTransferProgress()
        let meter = isatty(STDERR_FILENO) == 1 && !arguments.has(.silent) ? ProgressMeter.start(progress) : nil
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
        try place(file, at: output, clobber: clobber)
      } else {
        (data, response) = try await session.data(for: request, progress: nil)
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
        Output.error("< \(Output.value("\(name)")): \(Output.value("\(value)"))")
      }
    }
    if arguments.has(.json) {
      let headers = Dictionary(uniqueKeysWithValues: response.allHeaderFields.map { ("\($0.key)", "\($0.value)") })
      Output.print(
        Output.json(
          Report(
            url: response.url?.absoluteString ?? url.absoluteString, status: response.statusCode, headers: headers,
            bodyBytes: bodyBytes, connections: connections.withLock { $0 })))
    } else {
      if arguments.has(.include) {
        let version = connections.withLock { $0.last?.httpVersion } ?? "HTTP/1.1"
        Output.print("\(version) \(response.statusCode)")
        for (name, value) in response.allHeaderFields.sorted(by: { "\($0.key)" < "\($1.key)" }) {
          Output.print("\(Output.value("\(name)")): \(Output.value("\(value)"))")
        }
        Output.print("")
      }
      if arguments.value(.output) == nil { Output.write(data) }
    }
  }

  /// Refuses an `-o` target before anything is fetched: a directory, a missing directory to
  /// put the file in, or (without `--clobber`) a file that exists. `place` checks again.
  private static func checkOutput(_ path: String, clobber: Bool) throws(CLIError) {
    let target = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    // A device or a FIFO (-o /dev/null) is written to, as curl does, not replaced.
    if PlacedFile.isStream(path) { return }
    if FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) {
      if isDirectory.boolValue { throw .usage("\(Option.output) \(path) is a directory; name a file") }
      if !clobber { throw .usage("\(Option.output) \(path) exists; pass --clobber to replace it") }
    }
    let directory = target.deletingLastPathComponent().path
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw .usage("\(Option.output) \(path): there is no directory \(directory) to write it in")
    }
  }

  /// Puts a finished download at `path` (into it, for a device or a FIFO): first as a private
  /// file beside it (on the same file system), then renamed over the target with `--clobber`, or
  /// linked to it without (`link`
  /// fails rather than replace anything: there is no moment in which another file, a directory
  /// or a link put there could be replaced). Nothing is ever deleted but our own file, and its
  /// mode is set through a descriptor (`fchmod`), never by a path something could be swapped in at.
  private static func place(_ file: URL, at path: String, clobber: Bool) throws(CLIError) {
    if PlacedFile.isStream(path) {
      defer { unlink(file.path) }
      do {
        try PlacedFile.copy(file.path, into: path)
      } catch {
        throw .configuration("cannot write \(path): \(error.reason)")
      }
      return
    }
    let target = URL(fileURLWithPath: path)
    let temporary = target.deletingLastPathComponent().appendingPathComponent(
      ".\(target.lastPathComponent).cnpin-\(UUID().uuidString)")
    defer { unlink(file.path) }
    let descriptor: Int32
    do {
      descriptor = try PlacedFile.move(file.path, to: temporary.path)
    } catch {
      throw .configuration("cannot write \(path): \(error.reason)")
    }
    defer { close(descriptor) }
    defer { unlink(temporary.path) }
    // As a file created by the shell would be: 0666 less the umask.
    let mask = umask(0)
    umask(mask)
    guard fchmod(descriptor, 0o666 & ~mask) == 0 else {
      throw .configuration("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    guard PlacedFile.names(temporary.path, descriptor) else {
      throw .configuration("cannot write \(path): \(temporary.path) was replaced while the download was placed")
    }
    let placed = clobber ? rename(temporary.path, target.path) : link(temporary.path, target.path)
    guard placed == 0 else {
      let reason = errno == EEXIST ? "it exists; pass --clobber to replace it" : String(cString: strerror(errno))
      throw .configuration("cannot write \(path): \(reason)")
    }
  }

  /// "connected to api.test:443 (new connection, TLS 1.3, HTTP/2)", "… (TLS session resumed, …)",
  /// "reusing connection to …".
  static func describeConnection(_ event: CNConnectionEvent) -> String {
    let how =
      switch event.kind {
      case .new: "new connection"
      case .reused: "reused connection"
      case .resumed: "TLS session resumed"
      }
    let details = [how, event.tlsVersion?.description, event.httpVersion].compactMap { $0 }.joined(separator: ", ")
    return "\(event.kind == .reused ? "reusing connection" : "connected") to \(event.host):\(event.port) (\(details))"
  }

  /// `nearMiss`: the pinned domain the host is a typo away from, if any.
  private static func describe(_ event: CNConnectionEvent, nearMiss: String?) -> String {
    switch (event.pinning, event.error) {
    case (_, let error?): return "refused: \(error)"
    case (.accepted(let match)?, nil): return "pins: accepted by \(describeMatch(match))"
    case (.reportOnly(let failure)?, nil):
      return "pins: NOT satisfied, allowed because the configuration is report-only: \(failure)"
    case (.notPinned?, nil):
      return "pins: host not pinned (normal TLS validation only)"
        + (nearMiss.map { "; the configuration pins \(Output.value($0)): a typo?" } ?? "")
    default: return "pins: no decision"
    }
  }

  /// The request, its `-H` fields in the order given, each repeat sent (as curl sends them).
  private static func makeRequest(_ url: URL, _ arguments: Arguments) throws(CLIError) -> SessionRequest {
    var request = SessionRequest(url: url)
    for header in arguments.values(.header) {
      guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
        throw .usage("\(Option.header) needs 'Name: value', not \"\(header)\"")
      }
      request.fields.append(
        CNHTTPField(
          name: String(header[..<colon]), value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    if let body = arguments.value(.data) {
      if body.hasPrefix("@") {
        request.body = .data(try InputFile.read(String(body.dropFirst()), "\(Option.data) \(body)"))
      } else {
        request.body = .data(Data(body.utf8))
      }
      request.method = "POST"
      // As curl: the form type unless a -H gives the type.
      if request.value(forField: "Content-Type") == nil {
        request.fields.append(CNHTTPField(name: "Content-Type", value: "application/x-www-form-urlencoded"))
      }
    }
    if let method = arguments.value(.method) { request.method = method }
    return request
  }
}
