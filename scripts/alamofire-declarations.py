#!/usr/bin/env python3
"""Whether CNPinningAlamofire/Interfaces/Alamofire.swift says what Alamofire's source says.

The file records, by hand, the Alamofire declarations the adapter and its snippet use (Alamofire's
trust evaluation needs Security, so its interface cannot be printed on Linux). A hand-written
record proves only agreement with itself, so this reads each declaration against the source at the
commit the file's header names, in a clone of Alamofire (the `fetch` tool brings one; bare clones
do):
- a type, protocol, property, case, extension or associated type must appear in the file named by
  the comment above it, as written (whitespace and comments aside);
- a function or initializer must be declared there with the same name, modifiers and result, each
  recorded parameter with its label, name, type and default-or-not, in the same order; a parameter
  the record leaves out must have a default there (so every call that type-checks against the
  record is valid against Alamofire).

Usage: scripts/alamofire-declarations.py ALAMOFIRE_CLONE [--self-test]   (exits 1 naming each
difference; --self-test also shows that mistaken records are found)
Run it when Alamofire releases, with the clone at the new tag after updating the header.
"""
import re
import subprocess
import sys

RECORD = "CNPinningAlamofire/Interfaces/Alamofire.swift"


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def squash(text):
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s*([(),:<>\[\]?])\s*", r"\1", text)


def split_top(text):
    """Splits a parameter list at its top-level commas."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return [part.strip() for part in parts]


def parameter(text):
    """(label and name, type, has a default) of one parameter."""
    head, _, default = text.partition("=")
    names, _, kind = head.partition(":")
    return squash(names), squash(kind), bool(default.strip())


def functions(source, name):
    """Each declaration of func/init `name` in source: (modifiers, parameters, tail)."""
    found = []
    keyword = "init" if name == "init" else r"func\s+" + re.escape(name)
    pattern = re.compile(r"((?:(?:public|open|convenience|static|final|mutating)[ \t]+)*)" + keyword + r"\s*(<[^>]*>)?\s*\(")
    for match in pattern.finditer(source):
        depth, index = 1, match.end()
        while depth and index < len(source):
            depth += {"(": 1, ")": -1}.get(source[index], 0)
            index += 1
        parameters = source[match.end():index - 1]
        tail = re.match(r"[^{\n]*", source[index:]).group(0)
        found.append((squash(match.group(1)), [parameter(p) for p in split_top(parameters)], squash(tail)))
    return found


def differences(clone, record):
    """What in `record` Alamofire's source at the record's commit does not say; and how many
    declarations were read."""
    commit = re.search(r"commit[\s/]+([0-9a-f]{40})", record).group(1)
    problems, checked, sources = [], 0, {}
    current = None
    lines = record.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        origin = re.match(r"// (Source/\S+\.swift)", line)
        if origin:
            current = origin.group(1)
            if current not in sources:
                shown = subprocess.run(["git", "-C", clone, "show", f"{commit}:{current}"], capture_output=True, text=True)
                if shown.returncode:
                    problems.append(f"{current}: not in {clone} at {commit}")
                    sources[current] = ""
                else:
                    sources[current] = strip_comments(shown.stdout)
            continue
        code = strip_comments(line).strip()
        if not code or code in ("}", "{", "fatalError()") or current is None or not sources.get(current):
            continue
        # A declaration may run over lines until its body or its end.
        while code.count("(") > code.count(")") and index < len(lines):
            code += " " + strip_comments(lines[index]).strip()
            index += 1
        declaration = re.sub(r"\s*\{.*$", "", code)
        if declaration.startswith(("get", "set")) or declaration in ("", "import Security"):
            continue
        real = sources[current]
        function = re.search(r"\b(func\s+(\w+)|init)\s*(<[^>]*>)?\(", declaration)
        checked += 1
        if function:
            name = function.group(2) or "init"
            modifiers = squash(declaration[: function.start()])
            head_end = declaration.index("(", function.start())
            depth, end = 1, head_end + 1
            while depth and end < len(declaration):
                depth += {"(": 1, ")": -1}.get(declaration[end], 0)
                end += 1
            ours = [parameter(p) for p in split_top(declaration[head_end + 1:end - 1])]
            tail = squash(declaration[end:])
            if name == "init" and not ours and modifiers == "":
                continue  # the record's stand-in for a designated init it does not use
            candidates = [f for f in functions(real, name) if f[0] == modifiers and f[2] == tail]
            if not candidates:
                problems.append(f"{current}: no {modifiers} {name}(…){tail} (recorded: {squash(declaration)})")
                continue
            fits = False
            for _, theirs, _ in candidates:
                position, ok = 0, True
                for label, kind, default in ours:
                    while position < len(theirs) and theirs[position][0] != label:
                        if not theirs[position][2]:
                            ok = False
                        position += 1
                    if position == len(theirs) or theirs[position][1] != kind or theirs[position][2] != default:
                        ok = False
                        break
                    position += 1
                ok = ok and all(p[2] for p in theirs[position:])
                fits = fits or ok
            if not fits:
                problems.append(f"{current}: {name}'s parameters differ (recorded: {squash(declaration)})")
        elif squash(declaration) not in squash(real):
            problems.append(f"{current}: not found as recorded: {squash(declaration)}")
    return problems, checked, commit


# Each mistake must be found: a record that differs from Alamofire in one place.
MISTAKES = [
    ("public func performValidation(forHost host: String) throws", "public func performValidation(for host: String) throws", "a wrong label"),
    ("shouldAutomaticallyResume: Bool? = nil", "shouldAutomaticallyResume: Bool = nil", "a wrong parameter type"),
    ("open func request(", "public func request(", "public for open"),
    ("case noRequiredEvaluator(host: String)", "case noRequiredEvaluator(hostName: String)", "a case's wrong label"),
    ("serverTrustManager: ServerTrustManager? = nil) {", "serverTrustManager: ServerTrustManager? = nil, retries: Int = 0) {", "a parameter Alamofire does not have"),
    ("public init(allHostsMustBeEvaluated: Bool = true, evaluators:", "public init(allHostsMustBeEvaluated: Bool, evaluators:", "a default left off (a call without it fails here only: still a difference)"),
    ("open class ServerTrustManager: @unchecked Sendable", "open class ServerTrustManager: Sendable", "a checked Sendable"),
]


def main():
    clone = sys.argv[1]
    record = open(RECORD).read()
    problems, checked, commit = differences(clone, record)
    for problem in problems:
        print(f"alamofire-declarations: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"alamofire-declarations: {checked} recorded declarations agree with Alamofire at {commit}")
    if "--self-test" in sys.argv:
        for old, new, what in MISTAKES:
            if old not in record:
                sys.exit(f"alamofire-declarations self-test: the record no longer holds {old!r}")
            found, _, _ = differences(clone, record.replace(old, new, 1))
            if not found:
                sys.exit(f"alamofire-declarations self-test: {what} was NOT found")
            print(f"alamofire-declarations self-test: found {what}: {found[0]}")


main()
