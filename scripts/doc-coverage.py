#!/usr/bin/env python3
"""Which public symbols lack a doc comment: the compiler does not require one.

Lists the public symbols of the given symbol graphs that have no doc comment of their own.

Synthesized members and the implementations of standard protocol requirements (==, <,
description, hash(into:), Codable, RawRepresentable) are left out: DocC shows the protocol's
documentation for them. Exits 1 when any symbol is undocumented.
"""
import json
import sys

INHERITED = {
    "==(_:_:)", "!=(_:_:)", "<(_:_:)", "description", "debugDescription", "hash(into:)", "hashValue",
    "init(from:)", "encode(to:)", "init(rawValue:)", "rawValue", "errorDescription", "localizedDescription",
    "allCases", "makeIterator()", "next()",
}

missing = []
for path in sys.argv[1:]:
    with open(path) as file:
        graph = json.load(file)
    module = graph["module"]["name"]
    for symbol in graph["symbols"]:
        if symbol["accessLevel"] not in ("public", "open"):
            continue
        # An extension block of another module's type only groups members, each counted itself.
        if symbol["kind"]["identifier"] == "swift.extension":
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or symbol["pathComponents"][-1] in INHERITED:
            continue
        if not symbol.get("docComment"):
            missing.append(f"{module}.{'.'.join(symbol['pathComponents'])} ({symbol['kind']['displayName'].lower()})")

for name in sorted(missing):
    print(f"undocumented: {name}")
if missing:
    print(f"doc-coverage: {len(missing)} public symbol(s) without a doc comment", file=sys.stderr)
    sys.exit(1)
print("doc-coverage: every public symbol has a doc comment")
