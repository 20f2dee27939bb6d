// Uses the OpenSSL test kit (or the Linux transport), which only the Linux build has.
#if CNPINNING_LINUX_BACKEND
import CNPinning
import CNPinningTestKit
import Foundation
import Testing

@Suite("cnpin get")
struct GetCommandTests {
  /// `-H` fields go out as given: in order, each repeat sent (curl sends both `X-A`s); they used
  /// to go out sorted by name with a repeated name's first value dropped. A Content-Length that
  /// is not a plain decimal, or that a GET without a body contradicts, is refused before anything
  /// is sent.
  @Test func headerFieldsGoOutAsWritten() async throws {
    let fixture = try Fixture()
    let base = ["get", "--config", try fixture.configuration(), "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    let url = "https://api.test:\(fixture.genuine.port)/"
    let run = try await cnpin(base + [url, "-H", "Zeta: 1", "-H", "Alpha: 2", "-H", "X-A: 1", "-H", "X-A: 2"])
    #expect(run.status == 0, "\(run.stderr)")
    let sent = try #require(fixture.genuine.requests.last).headers.filter {
      ["zeta", "alpha", "x-a"].contains($0.name.lowercased())
    }
    #expect(sent.map { "\($0.name): \($0.value)" } == ["Zeta: 1", "Alpha: 2", "X-A: 1", "X-A: 2"])
    let requestsBefore = fixture.genuine.requests.count
    for length in ["+10", "5", "1 0", "-1"] {
      let refused = try await cnpin(base + [url, "-H", "Content-Length: \(length)"])
      #expect(refused.status == 2, "Content-Length: \(length): \(refused.stderr)")
      #expect(refused.stderr.contains("Content-Length"), "\(refused.stderr)")
    }
    #expect(fixture.genuine.requests.count == requestsBefore)
  }

  /// curl's spellings where the meaning is the same (issue 28, item 6): --cacert, -i, -s,
  /// --max-redirs, -L; -k is refused with the reason.
  @Test func curlSpellingsWork() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      request.target == "/moved" ? .redirect(to: "/") : .text("hello")
    })
    let config = try fixture.configuration()
    let base = ["--config", config, "--cacert", fixture.caFile] + fixture.resolve(fixture.genuine)
    let included = try await cnpin(["get", "-i", "-s", "-L", "https://api.test:\(fixture.genuine.port)/"] + base)
    #expect(included.status == 0, "\(included.stderr)")
    #expect(included.stdout.hasPrefix("HTTP/1.1 200\n"), "\(included.stdout)")
    #expect(included.stdout.contains("Content-Type: text/plain; charset=utf-8\n"))
    #expect(included.stdout.hasSuffix("\n\nhello"), "\(included.stdout.debugDescription)")
    let unfollowed = try await cnpin(["get", "-i", "--max-redirs", "0", "https://api.test:\(fixture.genuine.port)/moved"] + base)
    #expect(unfollowed.stdout.hasPrefix("HTTP/1.1 302\n"), "\(unfollowed.stdout)\(unfollowed.stderr)")
    let followed = try await cnpin(["get", "--location", "https://api.test:\(fixture.genuine.port)/moved"] + base)
    #expect(followed.stdout == "hello", "\(followed.stderr)")
    let pins = try await cnpin(
      ["pins", "api.test:\(fixture.genuine.port)", "--cacert", fixture.caFile] + fixture.resolve(fixture.genuine))
    #expect(pins.stdout == "Test Root X1\nR11\napi.test\n", "\(pins.stderr)")
    for insecure in ["-k", "--insecure"] {
      let refused = try await cnpin(["get", insecure, "https://api.test/"] + base)
      #expect(refused.status == 2)
      #expect(refused.stderr.hasPrefix("cnpin: -k/--insecure is refused: cnpin never turns certificate verification off"))
    }
    let badLimit = try await cnpin(["get", "--max-redirs", "-3", "https://api.test/"] + base)
    #expect(badLimit.status == 2 && badLimit.stderr.hasPrefix("cnpin: --max-redirs needs a number from 0 to 1000"))
  }

  /// With `--json`, a command that fails prints one JSON document saying why, so that a script
  /// never parses nothing (issue 28, item 6: `get --json` and `policy verify --json` printed
  /// nothing on failure).
  @Test func everyFailureWithJSONPrintsOneJSONDocument() async throws {
    let fixture = try Fixture()
    let config = try fixture.configuration()
    let token = try fixture.directory.file("bad.jws", "not-a-token")
    let key = try fixture.directory.file("k.pem", try TestPrivateKey.shared(.p256, slot: 60).publicKeyPEM)
    let runs: [[String]] = [
      ["get", "--json", "--config", config, "--cafile", fixture.caFile, "https://api.test:\(fixture.rogue.port)/"]
        + fixture.resolve(fixture.rogue),
      ["get", "--json", "--config", config, "ftp://api.test/"],
      ["policy", "verify", "--json", "--key", key, token],
      ["pins", "--json", "--cafile", fixture.caFile, "127.0.0.1:1"],
      ["lint", "--json", "/nonexistent/pins.json"],
    ]
    for arguments in runs {
      let run = try await cnpin(arguments)
      #expect(run.status != 0, "\(arguments)")
      let document = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
      #expect(document != nil, "\(arguments): stdout is not one JSON object: \(run.stdout.debugDescription)")
      #expect(document?["error"] is String, "\(arguments): \(run.stdout)")
    }
  }

  /// A configuration that pins a typo of the host (`api.tset`) leaves it unpinned; `get -v` says
  /// which pinned domain it nearly is (issue 28, item 7).
  @Test func getNamesThePinnedDomainAnUnpinnedHostNearlyIs() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "-v", "--config", try fixture.configuration(["api.tset"]), "--cafile", fixture.caFile,
        "https://api.test:\(fixture.genuine.port)/",
      ] + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stderr.contains("pins: host not pinned (normal TLS validation only); the configuration pins api.tset: a typo?"),
      "\(run.stderr)")
  }

  /// curl's proxy options, and the environment's proxy when none is given, through tinyproxy.
  @Test func getGoesThroughTheProxyOfTheOptionsOrTheEnvironment() async throws {
    let fixture = try Fixture()
    let proxy = try TestProxy.start()
    let config = try fixture.configuration(["127.0.0.1"])
    let url = "https://127.0.0.1:\(fixture.genuine.port)/"
    let target = "127.0.0.1:\(fixture.genuine.port)"

    let explicit = try await cnpin(["get", url, "--config", config, "--cafile", fixture.caFile, "-x", "127.0.0.1:\(proxy.port)"])
    #expect(explicit.status == 0 && explicit.stdout == "hello", "\(explicit.stderr)")
    #expect(proxy.connectRequests() == [target])

    let environment = ["https_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": ""]
    let fromEnvironment = try await cnpin(["get", url, "--config", config, "--cafile", fixture.caFile], environment: environment)
    #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
    #expect(proxy.connectRequests() == [target, target])

    let bypassed = try await cnpin(
      ["get", url, "--config", config, "--cafile", fixture.caFile, "--noproxy", "localhost,127.0.0.1"], environment: environment)
    #expect(bypassed.status == 0, "\(bypassed.stderr)")
    #expect(proxy.connectRequests().count == 2)

    let socks = try await cnpin(["get", url, "--config", config, "-x", "socks5://127.0.0.1:1080"])
    #expect(socks.status == 2 && socks.stderr.contains("socks5:// proxies are not supported"), "\(socks.stderr)")
    let broken = try await cnpin(["get", url, "--config", config], environment: ["https_proxy": "ftp://proxy"])
    #expect(broken.status == 2 && broken.stderr.contains("https_proxy: ftp:// proxies are not supported"), "\(broken.stderr)")
  }

  /// `-o` streams to the file; the progress meter shows only on a terminal (a pseudo-terminal
  /// from util-linux's `script` here), as curl's does.
  @Test func downloadsShowProgressOnlyOnATerminal() async throws {
    let body = String(repeating: "0123456789abcdef", count: 200_000)  // 3.1 MiB
    let fixture = try Fixture(genuineHandler: { _ in .text(body) })
    let output = fixture.directory.url.appendingPathComponent("body.bin").path
    let arguments =
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-o", output,
      ]
      + fixture.resolve(fixture.genuine)
    let piped = try await cnpin(arguments)
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stderr.isEmpty && piped.stdout.isEmpty)
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == body.utf8.count)

    try FileManager.default.removeItem(atPath: output)
    let command = ([cnpinExecutable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let terminal = try await run("/usr/bin/script", ["-qec", command, "/dev/null"])
    #expect(terminal.status == 0, "\(terminal.stdout)")
    #expect(terminal.stdout.contains("3.1 MiB of 3.1 MiB  100%"), "\(terminal.stdout)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == body.utf8.count)
  }

  /// `-o` never deletes: a directory (`.` included) is refused before anything is fetched, an
  /// existing file is replaced only with `--clobber`, and the body arrives whole through a
  /// private file that is renamed (or linked) into place, leaving nothing else behind. (Before,
  /// `-o DIR` removed DIR and everything in it.)
  @Test func outputNeverDeletesAndReplacesAFileOnlyWhenAsked() async throws {
    let fixture = try Fixture(genuineHandler: { _ in .text("fresh") })
    let base =
      ["get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile]
      + fixture.resolve(fixture.genuine)
    let directory = try TemporaryDirectory()
    let keep = try directory.file("keep.txt", "precious")
    let intoDirectory = try await cnpin(base + ["-o", directory.url.path])
    #expect(intoDirectory.status == 2)
    #expect(intoDirectory.stderr.contains("is a directory; name a file"), "\(intoDirectory.stderr)")
    let intoDot = try await run(
      "/bin/sh",
      [
        "-c",
        "cd '\(directory.url.path)' && exec '\(cnpinExecutable.path)' \(base.map { "'\($0)'" }.joined(separator: " ")) -o .",
      ])
    #expect(intoDot.status == 2)
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "precious")
    #expect(fixture.genuine.requests.isEmpty, "refused before anything was fetched")

    let refused = try await cnpin(base + ["-o", keep])
    #expect(refused.status == 2 && refused.stderr.contains("exists; pass --clobber to replace it"), "\(refused.stderr)")
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "precious")
    let replaced = try await cnpin(base + ["-o", keep, "--clobber"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(try String(contentsOfFile: keep, encoding: .utf8) == "fresh")
    let fresh = directory.url.appendingPathComponent("new.txt").path
    #expect(try await cnpin(base + ["-o", fresh]).status == 0)
    #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "fresh")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["keep.txt", "new.txt"])
  }

  /// Like curl, `-o` writes into a device or a FIFO (`-o /dev/null`, `-o >(…)`) rather than
  /// refusing it as an existing file, and `--cafile` reads a pipe (`--cafile <(…)`), which
  /// Foundation's file readers refuse. Both were refused before.
  @Test func outputAndInputsMayBeDevicesAndPipes() async throws {
    let fixture = try Fixture(genuineHandler: { _ in .text("streamed") })
    let base =
      ["get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration()]
      + fixture.resolve(fixture.genuine)
    let toNull = try await cnpin(base + ["--cafile", fixture.caFile, "-o", "/dev/null"])
    #expect(toNull.status == 0 && toNull.stdout.isEmpty, "\(toNull.stderr)")

    let directory = try TemporaryDirectory()
    let fifo = directory.url.appendingPathComponent("fifo").path
    let received = directory.url.appendingPathComponent("received.txt").path
    let quoted = base.map { "'\($0)'" }.joined(separator: " ")
    // The reader gets a writer once cnpin has ended (`1<>` opens without waiting), so that a
    // cnpin that never opens the FIFO fails the test rather than hanging it.
    let shell = try await run(
      "/bin/bash",
      [
        "-c",
        "mkfifo '\(fifo)' && { cat '\(fifo)' > '\(received)' & } && '\(cnpinExecutable.path)' \(quoted) --cafile <(cat '\(fixture.caFile)') -o '\(fifo)'; status=$?; : 1<>'\(fifo)'; wait; exit $status",
      ])
    #expect(shell.status == 0, "\(shell.stderr)")
    #expect(try String(contentsOfFile: received, encoding: .utf8) == "streamed")
  }

  /// A runtime error (a file that cannot be read) is said alone: the command line was right, so
  /// the command's help is not printed after it, as it was before.
  @Test func aRuntimeErrorIsNotFollowedByTheHelp() async throws {
    let fixture = try Fixture()
    let missing = try await cnpin(
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile",
        "/nonexistent.pem",
      ]
        + fixture.resolve(fixture.genuine))
    #expect(missing.status == 2)
    #expect(missing.stderr == "cnpin: cannot read --cafile /nonexistent.pem: No such file or directory\n", "\(missing.stderr)")
    let wrongLine = try await cnpin(["get"])
    #expect(wrongLine.status == 2 && wrongLine.stderr.contains("Usage: cnpin get URL"), "\(wrongLine.stderr)")
  }

  /// `-o` places the body with the mode a shell gives a new file (0666 less the umask, set on
  /// the open file, never by path), whether the download is linked beside the target (same file
  /// system) or copied there (the temporary folder on tmpfs), and leaves nothing else behind.
  @Test(arguments: [false, true])
  func outputIsPlacedByDescriptorOnEitherFileSystem(_ temporaryOnTmpfs: Bool) async throws {
    let fixture = try Fixture(genuineHandler: { _ in .text("placed") })
    let directory = try TemporaryDirectory()
    let output = directory.url.appendingPathComponent("body.txt").path
    let temporary = try TemporaryDirectory()
    let shm = URL(fileURLWithPath: "/dev/shm/cnpin-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: shm, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: shm) }
    let run = try await run(
      "/bin/sh",
      [
        "-c",
        "umask 027 && exec '\(cnpinExecutable.path)' "
          + ([
            "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile",
            fixture.caFile,
          ]
          + fixture.resolve(fixture.genuine) + ["-o", output]).map { "'\($0)'" }.joined(separator: " "),
      ], environment: ["TMPDIR": temporaryOnTmpfs ? shm.path : temporary.url.path])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "placed")
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int)
    #expect(mode == 0o640, "mode \(String(mode, radix: 8))")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["body.txt"])
  }

  /// A server's header with terminal escapes (erase the line, set the window title) is printed
  /// with them escaped by `-v`; the body, to a pipe, stays as sent.
  @Test func verboseEscapesWhatTheServerSent() async throws {
    let hostile = "a\u{1b}[2K\rb\u{1b}]0;owned\u{07}c"
    let response = LocalTLSServer.Response(headers: [.init("X-Note", hostile)], body: Data("\u{1b}[31mred".utf8))
    let fixture = try Fixture(genuineHandler: { _ in response })
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains(#"< X-Note: a\x1b[2K\x0db\x1b]0;owned\x07c"#), "\(run.stderr)")
    #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x0D })
    #expect(run.stdout == "\u{1b}[31mred")
  }

  @Test func verboseSaysHowTheConnectionWasMade() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ]
        + fixture.resolve(fixture.genuine))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("* connected to api.test:\(fixture.genuine.port) (new connection, TLS 1.3"), "\(run.stderr)")
  }

  @Test func getFetchesThroughThePins() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      .text(
        "\(request.method) \(request.target) \(request.header("X-Test") ?? "-") \(String(decoding: request.body, as: UTF8.self))")
    })
    let url = "https://api.test:\(fixture.genuine.port)/echo"
    let base =
      ["get", url, "--config", try fixture.configuration(), "--cafile", fixture.caFile] + fixture.resolve(fixture.genuine)
    let plain = try await cnpin(base)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stdout == "GET /echo - ")

    let verbose = try await cnpin(base + ["-X", "PUT", "-H", "X-Test: yes", "-d", "body", "-v"])
    #expect(verbose.stdout == "PUT /echo yes body")
    #expect(verbose.stderr.contains("*   verified chain (root → leaf): Test Root X1 → R11 → api.test"))
    #expect(verbose.stderr.contains("*   pins: accepted by chain 0 of api.test"))
    #expect(verbose.stderr.contains("< 200"))

    let directory = try TemporaryDirectory()
    let output = directory.url.appendingPathComponent("body.txt").path
    let toFile = try await cnpin(base + ["-o", output, "--json"])
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "GET /echo - ")
    let report = try JSONSerialization.jsonObject(with: Data(toFile.stdout.utf8)) as? [String: Any]
    #expect(report?["status"] as? Int == 200)
    #expect(report?["bodyBytes"] as? Int == 12)
  }

  /// A process that downloads leaves nothing in the temporary folder once it exits: the file is
  /// moved to `-o`, and the session's private download directory goes with the process.
  /// A download whose redirects never end is discarded hop by hop, and a temporary folder that
  /// cannot be written is a set-up failure that says so.
  @Test func aDownloadLeavesNothingInTheTemporaryFolder() async throws {
    let fixture = try Fixture(genuineHandler: { request in
      request.target == "/loop" ? .redirect(to: "/loop") : .text("hello")
    })
    let temporary = try TemporaryDirectory()
    let output = fixture.directory.url.appendingPathComponent("body.txt").path
    func get(_ path: String, _ extra: [String] = [], temporaryFolder: String) async throws -> Run {
      try await cnpin(
        [
          "get", "https://api.test:\(fixture.genuine.port)\(path)", "--config", try fixture.configuration(), "--cafile",
          fixture.caFile, "-o", output,
        ] + extra + fixture.resolve(fixture.genuine), environment: ["TMPDIR": temporaryFolder])
    }
    let fetched = try await get("/", temporaryFolder: temporary.url.path)
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(try String(contentsOfFile: output, encoding: .utf8) == "hello")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])

    let looping = try await get("/loop", ["-L", "--clobber"], temporaryFolder: temporary.url.path)
    #expect(looping.status == 3)
    #expect(looping.stderr.contains("redirects"), "\(looping.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == [])

    let missing = temporary.url.appendingPathComponent("missing").path
    let unwritable = try await get("/", ["--clobber"], temporaryFolder: missing)
    #expect(unwritable.status == 3)
    #expect(
      unwritable.stderr.contains("the session cannot make requests: cannot create a private directory"), "\(unwritable.stderr)")
  }

  @Test func getRefusesTheRogueServer() async throws {
    let fixture = try Fixture()
    let run = try await cnpin(
      [
        "get", "https://api.test:\(fixture.rogue.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile,
        "-v",
      ] + fixture.resolve(fixture.rogue))
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("Pin mismatch for api.test"))
    #expect(fixture.rogue.requests.isEmpty)
  }

  /// A command's tasks run on cnpin's main thread, as curl's work runs on its one thread: while
  /// a `get` waits for its response, the process has that thread and the session's network
  /// thread, and no thread of Dispatch's. It had five: the async main's hop started Dispatch's
  /// worker threads and manager thread, and the main thread ended itself (`dispatch_main`).
  @Test func getRunsOnTheMainThreadAndTheNetworkThread() async throws {
    let arrived = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let fixture = try Fixture(genuineHandler: { _ in
      arrived.signal()
      _ = release.wait(timeout: .now() + 60)
      return .text("hello")
    })
    try await offTheSharedThreads {
      let process = try TestProcess.start(
        cnpinExecutable.path,
        ["get", "https://api.test:\(fixture.genuine.port)/", "--config", try fixture.configuration(), "--cafile", fixture.caFile]
          + fixture.resolve(fixture.genuine),
        errorLog: fixture.directory.url.appendingPathComponent("stderr"))
      defer { process.terminate(SIGKILL) }
      let reached = arrived.wait(timeout: .now() + 60) == .success
      let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/task").map {
        (try? String(contentsOfFile: "/proc/\(process.pid)/task/\($0)/comm", encoding: .utf8))?
          .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
      }
      release.signal()
      #expect(reached)
      // Threads others start keep the process's name, as the main thread has it (a sanitizer's
      // background thread); Dispatch names its workers after their queues.
      #expect(threads.filter { $0 != "cnpin" } == ["CNPSession-1"], "\(threads)")
      #expect(process.waitForExit() == 0)
    }
  }
}
#endif
