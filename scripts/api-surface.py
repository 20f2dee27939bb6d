#!/usr/bin/env python3
"""Lists the public API from the symbol graphs `make docs` writes, one line per symbol or
conformance, and checks it against the committed list (docs/api/public-api.txt).

The toolchain's `swift package diagnose-api-breaking-changes` cannot build this package on Linux
(its baseline and current builds both define the C shims' module maps, and the digester stops
with "redefinition of module"), so the surface is compared as text: any change, added or
removed, fails the check until the list is regenerated in the same commit, which makes the
change a visible decision. The list is the Linux build's surface; the Apple-only API is not in it.

Usage: api-surface.py --check LIST GRAPH...   fail (1) and print the difference if LIST differs
       api-surface.py --write LIST GRAPH...   write LIST
"""
import difflib
import json
import sys


def declaration(symbol):
    return "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))


def lines(paths):
    out = set()
    for path in paths:
        graph = json.load(open(path))
        module = graph["module"]["name"]
        names = {}
        for symbol in graph["symbols"]:
            names[symbol["identifier"]["precise"]] = ".".join(symbol["pathComponents"])
        for symbol in graph["symbols"]:
            deprecated = any(
                entry.get("isUnconditionallyDeprecated") or "deprecated" in entry
                for entry in symbol.get("availability", []))
            name = ".".join(symbol["pathComponents"])
            note = "  [deprecated]" if deprecated else ""
            out.add(f"{module}  {name}  {declaration(symbol)}{note}")
        for relation in graph.get("relationships", []):
            if relation["kind"] not in ("conformsTo", "inheritsFrom"):
                continue
            source = names.get(relation["source"])
            if source is None:
                continue
            target = names.get(relation["target"]) or relation.get("targetFallback") or relation["target"]
            out.add(f"{module}  {source}  {relation['kind']} {target}")
    return sorted(out)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("--check", "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, list_path, graphs = sys.argv[1], sys.argv[2], sys.argv[3:]
    current = lines(graphs)
    if not current:
        print("api-surface: the symbol graphs list no public symbol", file=sys.stderr)
        return 1
    if mode == "--write":
        with open(list_path, "w") as handle:
            handle.write("\n".join(current) + "\n")
        print(f"api-surface: wrote {len(current)} lines to {list_path}")
        return 0
    try:
        committed = open(list_path).read().splitlines()
    except FileNotFoundError:
        committed = []
    if committed == current:
        print(f"api-surface: the public API matches {list_path} ({len(current)} lines)")
        return 0
    sys.stdout.writelines(
        line + "\n" for line in difflib.unified_diff(committed, current, list_path, "this build", lineterm="", n=0))
    print(f"api-surface: the public API differs from {list_path}. If the change is deliberate, run "
          "`make api-baseline`, commit the list with the change, and say it in CHANGELOG.md.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
