#!/usr/bin/env python3
"""Whether the Swift in prose compiles: the compiler never reads Markdown or doc comments.

Every Swift block in the README, the DocC articles and the doc comments of Sources/ (and of the
OpenAPI transport's package, CNPinningOpenAPI/, and the Alamofire adapter's, CNPinningAlamofire/) is a snippet that a build compiles.

Each ```swift block must follow a line `<!-- snippet: Snippets/NAME.swift -->` and equal that
file with its `// snippet.hide` … `// snippet.show` regions left out (set-up the reader does not
need, such as a placeholder for a value the text talks about; never in the README, whose programs
must compile pasted alone). `swift build` compiles every file
in Snippets/ (SwiftPM builds a package's snippets), and `make apple-check` type-checks them as an
Apple platform (CNPinningOpenAPI/Snippets: `make openapi-check`; CNPinningAlamofire/Snippets with Alamofire's recorded declarations), so a stale block is a red build. A block that cannot be a snippet (a
Package.swift fragment) follows `<!-- not a snippet: REASON -->`. In a doc comment the block and
its marker are `///` lines (DocC renders no HTML comment). Every snippet must be used.
Exits 1 naming each problem.
"""
import glob
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
documents = ["README.md"] + sorted(glob.glob("Sources/*/*.docc/*.md") + glob.glob("CNPinning*/Sources/*/*.docc/*.md"))
snippet_folders = ("Snippets/", "CNPinningOpenAPI/Snippets/", "CNPinningAlamofire/Snippets/")
problems = []
used = set()


def visible(path):
    shown, lines = True, []
    for line in open(path).read().split("\n"):
        if line.strip() == "// snippet.hide":
            shown = False
        elif line.strip() == "// snippet.show":
            shown = True
        elif shown:
            lines.append(line)
    return "\n".join(lines).strip("\n")


def doc_comment_lines(path):
    """The doc-comment text of a Swift file, line for line (other lines empty), so that blocks in
    doc comments are found and numbered as in a document."""
    out = []
    for line in open(path).read().split("\n"):
        stripped = line.strip()
        out.append(stripped[4:] if stripped.startswith("/// ") else "" if stripped != "///" else "")
    return out


sources = sorted(glob.glob("Sources/**/*.swift", recursive=True) + glob.glob("CNPinning*/Sources/**/*.swift", recursive=True))
for document in documents + sources:
    lines = doc_comment_lines(document) if document.endswith(".swift") else open(document).read().split("\n")
    for index, line in enumerate(lines):
        if line.strip() != "```swift":
            continue
        end = next((k for k in range(index + 1, len(lines)) if lines[k].strip() == "```"), None)
        if end is None:
            problems.append(f"{document}:{index + 1}: a Swift block that never ends")
            continue
        text = "\n".join(lines[index + 1:end]).strip("\n")
        marker = lines[index - 1].strip() if index > 0 else ""
        if marker.startswith("<!-- not a snippet:") and marker.endswith("-->"):
            continue
        if not (marker.startswith("<!-- snippet: ") and marker.endswith(" -->")):
            problems.append(f"{document}:{index + 1}: a Swift block without a <!-- snippet: Snippets/NAME.swift --> line")
            continue
        path = marker[len("<!-- snippet: "):-len(" -->")]
        if not (path.startswith(snippet_folders) and os.path.isfile(path)):
            problems.append(f"{document}:{index + 1}: no snippet file {path}")
            continue
        used.add(path)
        # The README's programs are pasted alone: nothing of them may be hidden.
        if document == "README.md" and "// snippet.hide" in open(path).read():
            problems.append(f"{document}:{index + 1}: {path} hides set-up, so the README's program does not compile pasted alone")
        if visible(path) != text:
            problems.append(f"{document}:{index + 1}: the block differs from {path} (what compiles)")

for path in sorted(glob.glob("Snippets/*.swift") + glob.glob("CNPinning*/Snippets/*.swift")):
    if path not in used:
        problems.append(f"{path}: used by no README or DocC block")

for problem in problems:
    print(f"check-snippets: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-snippets: {len(used)} snippets, each the text of the blocks that show it")
