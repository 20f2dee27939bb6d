import CNPinning
import CNPinningSession

/// How `cnpin` ends: each case carries its exit status.
enum CLIError: Error {
  /// A pin or a verification failed (exit 1).
  case failed(String)
  /// The command line is wrong (exit 2): the message, then the command's help.
  case usage(String)
  /// An input is wrong or cannot be used (exit 2): a file that cannot be read or written, a
  /// configuration or a certificate that does not load. The message alone: the command line
  /// was right.
  case configuration(String)
  /// The network failed (exit 3).
  case network(String)
  /// Already reported; exit with this status.
  case exit(Int32)

  /// What went wrong, in one line; nil for `exit` (already reported).
  var message: String? {
    switch self {
    case .failed(let message), .usage(let message), .configuration(let message), .network(let message): return message
    case .exit: return nil
    }
  }

  var status: Int32 {
    switch self {
    case .failed: return 1
    case .usage, .configuration: return 2
    case .network: return 3
    case .exit(let status): return status
    }
  }

  /// The exit status for a session failure: trust and pin verdicts are 1, usage problems 2, the
  /// network 3 (a failed TLS handshake included: no certificate was judged).
  static func from(_ error: CNPinnedSessionError) -> CLIError {
    if error.isTrustFailure { return .failed(error.description) }
    switch error.code {
    case .invalidURL, .invalidArgument, .unsupportedRequest: return .usage(error.description)
    default: return .network(error.description)
    }
  }
}

enum ExitStatus {
  static let success: Int32 = 0
  static let failed: Int32 = 1
  static let usage: Int32 = 2
  static let network: Int32 = 3
  /// `--warn-days`: everything passed, but something expires within the horizon.
  static let expiring: Int32 = 4
}
