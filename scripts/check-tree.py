#!/usr/bin/env python3
"""What the compiler cannot check about the tree: its prose, its scripts and whom a file imports.

Checks that the tree, the documents that describe it and its written rules agree (`make lint`):

- every folder under Sources/ is one row of ARCHITECTURE's "Where to look" table, and every row
  names a folder that exists, with a decisions file that exists;
- every decisions file opens with an "Applies to:" line whose paths exist;
- every file in scripts/ is run by a make target (named in the Makefile, or by a script the
  Makefile runs) or named in CONTRIBUTING.md;
- a Swift file imports a target of the package only when its own target depends on it directly
  (SwiftPM's import check accepts the whole dependency closure, so `internal import CCurl` in the
  session would build);
- every `@unchecked Sendable` in the package's own Swift (Sources, Tests, Benchmarks, Fuzz) has
  its reason on the line above, `// Unchecked Sendable: why the compiler may trust it.`

Exits 1 naming each disagreement.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
problems = []


def source_folders():
    found = set()
    for directory, subdirectories, _ in os.walk(os.path.join(ROOT, "Sources")):
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        relative = os.path.relpath(directory, ROOT)
        if relative != "Sources":
            found.add(relative)
    return found


def check_architecture_table():
    text = open(os.path.join(ROOT, "docs/ARCHITECTURE.md")).read()
    section = text.split("## Where to look", 1)
    if len(section) < 2:
        problems.append('docs/ARCHITECTURE.md has no "## Where to look" section')
        return
    rows = {}
    for line in section[1].split("\n## ", 1)[0].splitlines():
        match = re.match(r"\| `([^`]+)` \|[^|]*\| \[[^\]]*\]\(([^)]+)\) \|$", line)
        if match:
            if match.group(1) in rows:
                problems.append(f"ARCHITECTURE: {match.group(1)} has two rows")
            rows[match.group(1)] = match.group(2)
        elif line.startswith("| `"):
            problems.append(f"ARCHITECTURE: a row not of the form | `folder` | what | [decisions](file) |: {line}")
    folders = source_folders()
    for folder in sorted(folders - rows.keys()):
        problems.append(f"ARCHITECTURE's table has no row for {folder}")
    for folder in sorted(rows.keys() - folders):
        problems.append(f"ARCHITECTURE's table names {folder}, which does not exist")
    for folder, link in sorted(rows.items()):
        if not os.path.isfile(os.path.join(ROOT, "docs", link)):
            problems.append(f"ARCHITECTURE: the decisions of {folder}, {link}, do not exist")


def check_decisions():
    directory = os.path.join(ROOT, "docs/decisions")
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".md"):
            continue
        lines = open(os.path.join(directory, name)).read().splitlines()
        applies = next((line for line in lines[:6] if line.startswith("Applies to: ")), None)
        if applies is None:
            problems.append(f"docs/decisions/{name} does not open with an 'Applies to:' line")
            continue
        for path in re.findall(r"`([^`]+)`", applies):
            if not os.path.exists(os.path.join(ROOT, path)):
                problems.append(f"docs/decisions/{name} applies to {path}, which does not exist")


def check_scripts():
    # Run by a make target, or an occasional tool CONTRIBUTING.md names.
    makefile = open(os.path.join(ROOT, "Makefile")).read() + open(os.path.join(ROOT, "CONTRIBUTING.md")).read()
    run = {name for name in os.listdir(os.path.join(ROOT, "scripts")) if f"scripts/{name}" in makefile}
    # Scripts that the scripts run by the Makefile run in turn.
    changed = True
    while changed:
        changed = False
        for name in list(run):
            text = open(os.path.join(ROOT, "scripts", name), errors="replace").read()
            for other in os.listdir(os.path.join(ROOT, "scripts")):
                if other not in run and (f"scripts/{other}" in text or f'/{other}"' in text or f"/{other} " in text):
                    run.add(other)
                    changed = True
    for name in sorted(set(os.listdir(os.path.join(ROOT, "scripts"))) - run):
        problems.append(f"scripts/{name} is run by no make target and named by no line of CONTRIBUTING.md: give it one or delete it")


def check_unchecked_sendable():
    for top in ("Sources", "Tests", "Benchmarks/Sources", "Fuzz/Sources"):
        for directory, subdirectories, files in os.walk(os.path.join(ROOT, top)):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            for file in files:
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                lines = open(path).read().splitlines()
                for number, line in enumerate(lines):
                    if "@unchecked Sendable" not in line or line.lstrip().startswith("//"):
                        continue
                    above = lines[number - 1].strip() if number else ""
                    if not (above.startswith("// Unchecked Sendable: ") and len(above) > len("// Unchecked Sendable: ") + 10):
                        problems.append(
                            f"{os.path.relpath(path, ROOT)}:{number + 1}: @unchecked Sendable without "
                            "`// Unchecked Sendable: <reason>` on the line above")


def check_direct_imports():
    """A file imports only its target's own dependencies. SwiftPM's
    --explicit-target-dependency-import-check lets through any module of the dependency closure:
    `internal import CCurl` in a session file builds, since CNPinningCurl depends on CCurl."""
    described = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout
    targets = json.loads(described)["targets"]
    names = {target["name"] for target in targets}
    import_line = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:internal|package|public|private|fileprivate)\s+)?import\s+(\w+)")
    for target in targets:
        allowed = set(target.get("target_dependencies") or []) | {target["name"]}
        if target.get("type") == "snippet" or not os.path.isdir(os.path.join(ROOT, target["path"])):
            continue
        for directory, _, files in os.walk(os.path.join(ROOT, target["path"])):
            for file in (name for name in files if name.endswith(".swift")):
                path = os.path.join(directory, file)
                for number, line in enumerate(open(path).read().splitlines(), 1):
                    match = import_line.match(line)
                    if match and match.group(1) in names and match.group(1) not in allowed:
                        problems.append(f"{os.path.relpath(path, ROOT)}:{number}: {target['name']} imports "
                                        f"{match.group(1)}, which Package.swift does not make its dependency")


check_architecture_table()
check_decisions()
check_unchecked_sendable()
check_scripts()
check_direct_imports()
if problems:
    for problem in problems:
        print(f"check-tree: {problem}", file=sys.stderr)
    sys.exit(1)
print("check-tree: the folders, ARCHITECTURE's table, the decisions, the scripts, the imports and the unchecked Sendables agree")
