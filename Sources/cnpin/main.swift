import CNPinning
import CNPinningSession
import Foundation

let usage = """
  Usage: cnpin COMMAND [OPTIONS]

  Commands:
    pins HOST[:PORT]          print a host's verified CN chain, root → leaf (or pins to paste)
    check --config FILE       check that each pinned host serves a chain the config accepts
    lint FILE                 find configuration mistakes that fail open or lock users out
    get URL --config FILE     fetch a URL through a pinned session, like curl
    convert FILE --to FORMAT  convert a configuration (plist, json) or export its keys (nsc, okhttp, …)
    catalogue                 list the CA catalogue: each CA's families, successors and dated events
    policy sign|verify|rescue sign, verify, or make a rescue policy from a new chain
    help [COMMAND]            show help
    version                   print cnpin's version (also --version)

  Linux only: `pins HOST` and `check` read a host's handshake, and `check --chain` verifies
  with OpenSSL, as the Linux session does; a macOS build of cnpin refuses them, saying so.

  Exit status: 0 success; 1 a pin or verification failed; 2 usage or configuration error;
  3 network error; 4 all passed, but something expires within --warn-days (check, lint).
  Run `cnpin COMMAND --help` for a command's options and examples.
  """

/// The commands, each with its help, made only when asked for (a process that runs a command
/// does not lay out seven help texts).
enum Commands {
  static let helps: [String: @Sendable () -> String] = [
    "pins": { PinsCommand.help }, "check": { CheckCommand.help }, "lint": { LintCommand.help },
    "get": { GetCommand.help }, "convert": { ConvertCommand.help }, "policy": { PolicyCommand.help },
    "catalogue": { CatalogueCommand.help },
  ]

  static func help(_ command: String) -> String? { helps[command]?() }
}

/// What `--json` prints when a command fails before it has a document of its own.
struct JSONFailure: Encodable {
  let error: String
  let exitStatus: Int32
}

func run(_ words: [String]) async throws(CLIError) {
  guard let command = words.first else { throw .usage("missing COMMAND") }
  let rest = Array(words.dropFirst())
  if rest.contains(where: Option.help.names.contains), let help = Commands.help(command) {
    Output.print(help)
    return
  }
  switch command {
  case "pins": try await PinsCommand.run(rest)
  case "check": try await CheckCommand.run(rest)
  case "lint": try LintCommand.run(rest)
  case "get": try await GetCommand.run(rest)
  case "convert": try ConvertCommand.run(rest)
  case "policy": try PolicyCommand.run(rest)
  case "catalogue": try CatalogueCommand.run(rest)
  case "version", "--version":
    Output.print("cnpin \(CNPinningVersion.current)")
    #if CNPINNING_LINUX_BACKEND
    for line in LibcurlRuntime.report { Output.print(line) }
    #endif
  case "help", "--help", "-h":
    Output.print(rest.first.flatMap(Commands.help) ?? usage)
  default:
    let guess = Suggestion.closest(to: command, among: Commands.helps.keys.sorted() + ["help", "version", "--help", "--version"])
    throw .usage("unknown command \"\(command)\"" + (guess.map { " (did you mean \"\($0)\"?)" } ?? ""))
  }
}

/// Runs the command `words` name and exits with its status.
func runAndExit(_ words: [String]) async -> Never {
  do {
    try await run(words)
    exit(ExitStatus.success)
  } catch {
    switch error {
    case .usage(let message):
      // The command's own help when the command is known; the overview otherwise.
      Output.error("cnpin: \(message)")
      Output.error(words.first.flatMap(Commands.help) ?? usage)
    case .failed(let message), .configuration(let message), .network(let message):
      Output.error("cnpin: \(message)")
    case .exit:
      break
    }
    // With --json, a failure that printed no document of its own prints one that says why.
    if words.contains(Option.json.name), let message = error.message {
      Output.print(Output.json(JSONFailure(error: message, exitStatus: error.status)))
    }
    exit(error.status)
  }
}

// The library's warnings reach the terminal in release builds too.
CNPinningLog.setHandler(CNPinningLog.standardError)
let words = Array(CommandLine.arguments.dropFirst())
#if CNPINNING_LINUX_BACKEND
// Every task of the command runs on this thread (MainThreadExecutor).
let executor = MainThreadExecutor()
Task.detached(executorPreference: executor) { await runAndExit(words) }
executor.run()
#else
await runAndExit(words)
#endif
