#!/usr/bin/env python3
"""Which public API changes are deliberate: the compiler accepts any.

The public API as text: each module's interface, synthesized by the toolchain from the built
module (`swift-synthesize-interface`, what an editor shows as a module's generated interface),
with doc comments and blank lines left out and top-level declarations sorted, so that moving a
declaration to another file changes nothing while any change to a signature, a conformance or
an attribute is a line in a diff. `scripts/api-surface.sh` makes the interfaces: the Linux build
of CNPinning, CNPinningSession and CNPinningTestKit, and the Apple build
(`make apple-check`'s modules, against the SDK stubs) of CNPinning and CNPinningSession. An Apple
list holds only how it differs from the Linux list of its module (`+` Apple only, `-` Linux only),
so a change to the shared API is one line in one list.

Declarations marked `@_spi(NAME) public` are not public API (only an `@_spi(NAME) import` sees
them), but the synthesizer prints them without their attribute: the lists leave out each one the
sources so mark (`spi_declarations`).

Symbol graphs were used before; they dropped `CNPinningVersion` (swift-symbolgraph-extract leaves
out every symbol whose name is the module's name followed by `Version`, as it does Clang's
framework version constants: checked with a two-line module) and knew nothing of the Apple-only
API or the test kit.

Usage: api-surface.py --check DIR INTERFACE...   fail (1) and print each difference from DIR
       api-surface.py --write DIR INTERFACE...   write DIR/<name>.txt for each INTERFACE
An INTERFACE is a file named <platform>-<Module>.swiftinterface; its list is <platform>-<Module>.txt,
or for an Apple interface given with its module's Linux one, apple-<Module>-delta.txt.
"""
import difflib
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a line of an interface starts with. Anything else is source text the synthesizer copied
# from a file that changed after its module was built: the check refuses it rather than list it.
LINE_START = re.compile(
    r"\s*(public|open|final|package|case|extension|deinit|@[A-Za-z_]+|\}|@_exported import|"
    r"associatedtype|indirect|nonisolated|static|mutating|convenience|required|override|func|var|let|init|"
    r"subscript|struct|class|enum|protocol|typealias|actor|precedencegroup|infix|prefix|postfix)\b|\s*\}$")
DECLARATION = re.compile(r"\b(public|open|extension|import|func|var|let|struct|class|enum|protocol|typealias|actor|init)\b")


def spi_declarations():
    """Each `@_spi(NAME) public var|let|func|struct|class|enum NAME` in the package's sources, by
    module (the folder under Sources), as the line that starts its declaration in an interface
    (`public var NAME`); a type's members go with it."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "Sources", "*", "**", "*.swift"), recursive=True):
        module = os.path.relpath(path, os.path.join(ROOT, "Sources")).split(os.sep)[0]
        for match in re.finditer(r"@_spi\(\w+\)\s+public\s+(var|let|func|struct|class|enum)\s+(\w+)", open(path).read()):
            found.setdefault(module, set()).add(f"public {match.group(1)} {match.group(2)}")
    return found


SPI = spi_declarations()


def normalized(text, module):
    """Declarations without comments or blank lines (nor `module`'s SPI ones), top-level blocks
    sorted."""
    spi = SPI.get(module, set())
    lines, inside_spi_type = [], False
    for line in (line.rstrip() for line in text.splitlines()):
        # An SPI type's block, from its declaration to the top-level `}` that ends it.
        if not inside_spi_type and not line.startswith((" ", "\t")) and line.endswith("{") \
                and re.sub(r"[:(<].*", "", line.strip()).strip() in spi:
            inside_spi_type = True
        elif inside_spi_type:
            inside_spi_type = line != "}"
        elif re.sub(r"[:(<].*", "", line.strip()) not in spi:
            lines.append(line)
    # Comments, blank lines and plain imports (what the module uses, not what it offers) go;
    # `@_exported import`, which offers another module's API, stays.
    lines = [
        line for line in lines
        if line.strip() and not line.lstrip().startswith("//") and not line.startswith("import ")
    ]
    blocks, current, attribute_pending = [], [], False
    for line in lines:
        top_level = not line.startswith((" ", "\t", "}"))
        if top_level and current and not attribute_pending:
            blocks.append(current)
            current = []
        current.append(line)
        # An attribute on a line of its own (`@available(…)`) belongs to the declaration after it.
        attribute_pending = top_level and line.startswith("@") and not DECLARATION.search(line)
    if current:
        blocks.append(current)
    blocks.sort(key=lambda block: "\n".join(block))
    return [line for block in blocks for line in block]


def delta(linux, apple):
    """The lines only the Apple list has (`+`) and only the Linux list has (`-`), in order."""
    return [
        line for line in difflib.unified_diff(linux, apple, lineterm="", n=0)
        if not line.startswith(("---", "+++", "@@"))
    ]


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("--check", "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, directory, interfaces = sys.argv[1], sys.argv[2], sys.argv[3:]
    different = []
    lists = {}
    for interface in sorted(interfaces, key=lambda path: not os.path.basename(path).startswith("linux-")):
        name = os.path.basename(interface).removesuffix(".swiftinterface")
        current = normalized(open(interface).read(), name.split("-", 1)[1])
        lists[name] = current
        stray = [line for line in current if not LINE_START.match(line)]
        if stray:
            print(f"api-surface: {interface} holds text that is no declaration ({stray[0].strip()!r}): its module is "
                  "older than its sources; build it again", file=sys.stderr)
            return 1
        if len(current) < 3:
            print(f"api-surface: the interface {interface} declares nothing", file=sys.stderr)
            return 1
        linux = lists.get(name.replace("apple-", "linux-", 1)) if name.startswith("apple-") else None
        if linux is not None:
            current = delta(linux, current)
            name += "-delta"
        path = os.path.join(directory, name + ".txt")
        if mode == "--write":
            with open(path, "w") as handle:
                handle.write("\n".join(current) + "\n")
            print(f"api-surface: wrote {len(current)} lines to {path}")
            continue
        try:
            committed = open(path).read().splitlines()
        except FileNotFoundError:
            committed = []
        if committed == current:
            print(f"api-surface: {name} matches {path} ({len(current)} lines)")
            continue
        different.append(path)
        sys.stdout.writelines(
            line + "\n" for line in difflib.unified_diff(committed, current, path, "this build", lineterm="", n=0))
    if mode == "--check" and different:
        print(f"api-surface: the public API differs from {', '.join(different)}. If the change is deliberate, run "
              "`make api-baseline`, commit the lists with the change, and say it in CHANGELOG.md.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
