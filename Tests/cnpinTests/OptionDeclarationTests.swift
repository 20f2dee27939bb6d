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

  /// The options among `options` that the parser of `words` refuses as unknown: each given with
  /// a value, then the sentinel; an unknown one is taken out and the rest asked again.
  static func refused(_ words: [String], _ options: Set<String>) async throws -> Set<String> {
    // --help is answered before parsing; -k/--insecure is refused whatever the command.
    var asked = options.subtracting(["--help", "-h", "-k", "--insecure"])
    var refused: Set<String> = []
    for _ in 0...options.count {
      let run = try await cnpin(words + asked.sorted().flatMap { [$0, "x"] } + [sentinel])
      guard let line = run.stderr.split(separator: "\n").first, line.hasPrefix("cnpin: unknown option ") else {
        Issue.record("\(words) did not parse as far as the sentinel: \(run.stderr)")
        return refused
      }
      let unknown = String(line.dropFirst("cnpin: unknown option ".count))
      if unknown == sentinel { return refused }
      refused.insert(unknown)
      asked.remove(unknown)
    }
    return refused
  }

  @Test(arguments: ["pins", "check", "lint", "get", "convert", "catalogue"])
  func everyOptionTheHelpNamesIsParsed(_ command: String) async throws {
    let help = try await cnpin([command, "--help"])
    #expect(help.status == 0 && help.stdout.hasPrefix("Usage: cnpin \(command) "), "\(help.stdout)")
    let named = Self.optionsNamed(in: help.stdout)
    #expect(named.count >= 3, "\(named.sorted())")
    // The probe tells a declared option from another: one it cannot know is refused.
    #expect(try await Self.refused([command], ["--not-an-option"]) == ["--not-an-option"])
    let refused = try await Self.refused([command], named)
    #expect(refused.isEmpty, "\(command)'s help names \(refused.sorted()), which its parser refuses")
  }

  @Test func everyOptionThePolicyHelpNamesIsParsedByOneOfItsActions() async throws {
    let help = try await cnpin(["policy", "--help"])
    let named = Self.optionsNamed(in: help.stdout)
    var refusedByAll = named
    for action in ["sign", "verify", "rescue"] {
      refusedByAll.formIntersection(try await Self.refused(["policy", action], named))
    }
    #expect(refusedByAll.isEmpty, "policy's help names \(refusedByAll.sorted()), which no action parses")
  }

  /// curl's spellings that `get` parses are in its help, beside the short forms.
  @Test func getsHelpListsTheSpellingsItParses() async throws {
    let help = try await cnpin(["get", "--help"]).stdout
    for spellings in ["--cafile, --cacert PEM", "-s, --silent", "-i, --include", "-L, --location", "-x, --proxy URL"] {
      #expect(help.contains("\n  " + spellings), "\(spellings) in \(help)")
      let names = spellings.split(separator: " ").map { $0.trimmingCharacters(in: [","]) }.filter { $0.hasPrefix("-") }
      #expect(try await Self.refused(["get"], Set(names)).isEmpty, "\(spellings)")
    }
  }

  /// A value outside an option's declared choices is refused by the parser, naming the choices.
  @Test func aChoiceOutsideTheDeclaredOnesIsRefused() async throws {
    let run = try await cnpin(["catalogue", "--format", "yaml"])
    #expect(run.status == 2 && run.stderr.hasPrefix("cnpin: --format must be one of text, json, not \"yaml\"\n"), "\(run.stderr)")
  }
}
#endif
