// Runs the Linux build's tool through cnpin's process helpers.
#if CNPINNING_LINUX_BACKEND
import Foundation
import Testing

/// Each option of cnpin is declared once, with its help, and the usage lines, the help and the
/// parser are made from that declaration (issue 67, item 4): asked of the tool itself, every
/// option a command's help names is one its parser takes, and the spellings it parses (curl's
/// among them) are the ones its help lists.
@Suite("cnpin options: help and parser agree")
struct OptionDeclarationTests {
  /// Parsed after the option under test: reported unknown only when the parser got that far,
  /// so that nothing connects or reads a file.
  static let sentinel = "--no-such-option-here"

  /// Every `-x` or `--name` a help text names, outside back-quotes (another command's line).
  static func optionsNamed(in help: String) -> Set<String> {
    let own = help.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }
      .map(\.element).joined(separator: " ")
    let words = own.split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }
    return Set(
      words.filter { word in
        let name = word.drop { $0 == "-" }
        return (1...2).contains(word.count - name.count) && name.first?.isLetter == true
      }.map(String.init))
  }

  /// The parser's answer to `words` + `option` + a value + the sentinel: nil when it took the
  /// option, else what it said.
  static func refusal(_ words: [String], _ option: String) async throws -> String? {
    let run = try await cnpin(words + [option, "x", sentinel])
    return run.stderr.contains("unknown option \(option)\n") ? run.stderr : nil
  }

  @Test(arguments: ["pins", "check", "lint", "get", "convert", "catalogue"])
  func everyOptionTheHelpNamesIsParsed(_ command: String) async throws {
    let help = try await cnpin([command, "--help"])
    #expect(help.status == 0 && help.stdout.hasPrefix("Usage: cnpin \(command) "), "\(help.stdout)")
    let named = Self.optionsNamed(in: help.stdout).subtracting(["-k", "--insecure"])
    #expect(named.count >= 3, "\(named.sorted())")
    // The sentinel itself is refused: the probe can tell a declared option from another.
    #expect(try await Self.refusal([command], Self.sentinel) != nil)
    for option in named.sorted() {
      let refusal = try await Self.refusal([command], option)
      #expect(refusal == nil, "\(command)'s help names \(option), which its parser refuses: \(refusal ?? "")")
    }
  }

  @Test func everyOptionThePolicyHelpNamesIsParsedByOneOfItsActions() async throws {
    let help = try await cnpin(["policy", "--help"])
    for option in Self.optionsNamed(in: help.stdout).sorted() {
      var refusals: [String] = []
      for action in ["sign", "verify", "rescue"] {
        if let refusal = try await Self.refusal(["policy", action], option) { refusals.append(refusal) }
      }
      #expect(refusals.count < 3, "policy's help names \(option), which no action parses")
    }
  }

  /// curl's spellings that `get` parses are in its help, beside the short forms.
  @Test func getsHelpListsTheSpellingsItParses() async throws {
    let help = try await cnpin(["get", "--help"]).stdout
    for spellings in ["--cafile, --cacert PEM", "-s, --silent", "-i, --include", "-L, --location", "-x, --proxy URL"] {
      #expect(help.contains("\n  " + spellings), "\(spellings) in \(help)")
      for spelling in spellings.split(separator: " ").map({ $0.trimmingCharacters(in: [","]) }) where spelling.hasPrefix("-") {
        #expect(try await Self.refusal(["get"], spelling) == nil, "\(spelling)")
      }
    }
  }

  /// A value outside an option's declared choices is refused by the parser, naming the choices.
  @Test func aChoiceOutsideTheDeclaredOnesIsRefused() async throws {
    let run = try await cnpin(["catalogue", "--format", "yaml"])
    #expect(run.status == 2 && run.stderr.hasPrefix("cnpin: --format must be one of text, json, not \"yaml\"\n"), "\(run.stderr)")
  }
}
#endif
