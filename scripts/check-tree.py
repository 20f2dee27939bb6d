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
    import_line = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:internal|package|public|private|fileprivate)\s+)?import\s+(\w+)")
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


APPLE_DECISIONS_LIMIT = 20
APPLE_DECISION = re.compile(r"^\s*(if |guard |switch |\} else if |\} catch|catch\b)|\? .* : | \?\? |try\?")


def apple_only_decisions():
    """The lines that branch in the files wholly under `#if !CNPINNING_LINUX_BACKEND` (no Linux test
    reaches them), by file: comments and `#` lines left out (issue 66, item 4)."""
    found = {}
    for directory, subdirectories, files in os.walk(os.path.join(ROOT, "Sources")):
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        for file in (name for name in files if name.endswith(".swift")):
            path = os.path.join(directory, file)
            lines = open(path).read().splitlines()
            code = [line.strip() for line in lines if line.strip() and not line.strip().startswith("//")]
            if not code or code[0] != "#if !CNPINNING_LINUX_BACKEND" or code[-1] != "#endif":
                continue
            # Wholly under it: the first #if is closed by the last line only.
            depth, closed_early = 0, False
            for index, line in enumerate(code):
                if line.startswith("#if"):
                    depth += 1
                elif line.startswith("#endif"):
                    depth -= 1
                    closed_early = closed_early or (depth == 0 and index != len(code) - 1)
            if closed_early:
                continue
            count = sum(1 for line in lines
                        if not line.strip().startswith(("//", "#")) and APPLE_DECISION.search(line))
            if count:
                found[os.path.relpath(path, ROOT)] = count
    return found


def check_apple_decisions():
    """At most APPLE_DECISIONS_LIMIT decision lines in the Apple-only files, each file's count named
    in docs/decisions/apple.md's table with the device checks that cover its branches."""
    found = apple_only_decisions()
    total = sum(found.values())
    if total > APPLE_DECISIONS_LIMIT:
        problems.append(f"the Apple-only files hold {total} decision lines, more than {APPLE_DECISIONS_LIMIT}: move "
                        "decisions into shared code tested on Linux")
    table = {}
    for line in open(os.path.join(ROOT, "docs/decisions/apple.md")).read().splitlines():
        match = re.match(r"^\| `(Sources/[^`]+)` \| (\d+) \|.*\| ([\d, ]+) \|$", line)
        if match:
            table[match.group(1)] = int(match.group(2))
    for path, count in sorted(found.items()):
        if table.get(path) != count:
            problems.append(f"{path} holds {count} Apple-only decision lines; docs/decisions/apple.md's table says "
                            f"{table.get(path, 'nothing')}: name each branch there with its device check")
    for path in sorted(set(table) - set(found)):
        problems.append(f"docs/decisions/apple.md's table names {path}, which holds no Apple-only decision line")


check_architecture_table()
check_apple_decisions()
check_decisions()
check_unchecked_sendable()
check_scripts()
check_direct_imports()
if problems:
    for problem in problems:
        print(f"check-tree: {problem}", file=sys.stderr)
    sys.exit(1)
print("check-tree: the folders, ARCHITECTURE's table, the decisions, the Apple-only decision lines "
      f"({sum(apple_only_decisions().values())} of at most {APPLE_DECISIONS_LIMIT}), the scripts, the imports and the "
      "unchecked Sendables agree")
