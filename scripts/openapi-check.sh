#!/usr/bin/env bash
# Whether CNPinningOpenAPI builds against swift-openapi-runtime and swift-http-types, and that the root package depends on nothing.
#   scripts/openapi-check.sh [--self-test]
#       without the packages (CI cannot fetch them): type-checks the transport, its tests and the
#       DocC article's snippet against the packages' public declarations as recorded from their
#       1.0.0 releases (CNPinningOpenAPI/Interfaces, compiled here as module interfaces), the
#       snippet with the stand-in for a generated client it carries. --self-test also shows that
#       mistakes fail it, among them the Int the old hand-written stub had for Int64.
#   scripts/openapi-check.sh --real RUNTIME_CLONE HTTP_TYPES_CLONE [DOCC_PLUGIN_CLONE SYMBOLKIT_CLONE]
#       with local git clones of the packages (bare ones do; the `fetch` tool brings them; 1.0.0
#       of the two also resolves swift-docc-plugin and its swift-docc-symbolkit): in a scratch copy
#       outside the repository, `swift build` (the snippet included) and `swift test` of
#       CNPinningOpenAPI against 1.0.0 and the newest tag of each (SwiftPM mirrors), and records
#       1.0.0's public declarations again in CNPinningOpenAPI/Interfaces (`git diff` shows what changed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
package=$root/CNPinningOpenAPI
out=$root/.build/openapi-check

dependencies=$(cd "$root" && swift package show-dependencies --format json |
  python3 -c 'import json, sys; print(len(json.load(sys.stdin)["dependencies"]))')
if [ "$dependencies" != 0 ]; then
  echo "openapi-check: the root package depends on $dependencies packages; CNPinning and CNPinningSession must resolve nothing" >&2
  exit 1
fi

# The C modules a module importing CNPinningSession needs found, for the package at ROOT built into BIN.
c_modules() {
  cmodules=(
    -Xcc "-fmodule-map-file=$1/Sources/COpenSSL/module.modulemap"
    -Xcc "-fmodule-map-file=$1/Sources/CCurl/module.modulemap"
    -Xcc "-fmodule-map-file=$2/CNPinningShims.build/module.modulemap"
    -Xcc "-fmodule-map-file=$2/CNPinningCurlShims.build/module.modulemap"
  )
}

# check_snippet MODULES_DIR OTHER_MODULES_DIR SOURCES_ROOT: the article's example, with the
# stand-in for a generated client it carries (as `swift build` compiles it in the package).
check_snippet() {
  local modules=$1 others=$2 sources=$3
  swiftc -swift-version 6 -I "$modules" -I "$others" "${cmodules[@]}" -typecheck -module-name PinnedClient \
    "$sources/Snippets/PinnedClient.swift" || return 1
}

if [ "${1:-}" = --real ]; then
  runtime=$(cd "${2:?the path of a git clone of swift-openapi-runtime}" && pwd)
  types=$(cd "${3:?the path of a git clone of swift-http-types}" && pwd)
  scratch=$(mktemp -d /tmp/openapi-real.XXXXXX)
  (cd "$root" && tar --exclude=./.build --exclude=./.git --exclude=./.swiftpm --exclude=./CNPinningOpenAPI/.build -cf - .) |
    (cd "$scratch" && tar xf -)
  copy=$scratch/CNPinningOpenAPI
  rm -f "$copy/Package.resolved"
  # Each mirror under its package's name: SwiftPM names a package by its URL's last component.
  mkdir "$scratch/mirrors"
  clones=(swift-openapi-runtime:"$runtime" swift-http-types:"$types")
  [ -n "${4:-}" ] && clones+=(swift-docc-plugin:"$(cd "$4" && pwd)")
  [ -n "${5:-}" ] && clones+=(swift-docc-symbolkit:"$(cd "$5" && pwd)")
  for clone in "${clones[@]}"; do
    ln -s "${clone#*:}" "$scratch/mirrors/${clone%%:*}"
    (cd "$copy" && swift package config set-mirror --original "https://github.com/apple/${clone%%:*}" \
      --mirror "file://$scratch/mirrors/${clone%%:*}")
  done
  newest() { git -C "$1" tag --sort=-v:refname | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | head -1; }
  for versions in "$(newest "$runtime") $(newest "$types")" "1.0.0 1.0.0"; do
    read -r runtimeVersion typesVersion <<<"$versions"
    python3 - "$copy/Package.swift" "$runtimeVersion" "$typesVersion" <<'PY'
import re, sys
path, runtime, types = sys.argv[1:]
text = open(path).read()
text = re.sub(r'(swift-openapi-runtime", )[a-z]+: "[^"]*"', rf'\1exact: "{runtime}"', text)
text = re.sub(r'(swift-http-types", )[a-z]+: "[^"]*"', rf'\1exact: "{types}"', text)
open(path, "w").write(text)
PY
    (cd "$copy" && rm -rf .build Package.resolved && swift build --build-tests && swift test)
    built=$(cd "$copy" && swift build --show-bin-path)
    modules=$built/Modules
    c_modules "$scratch" "$built"
    check_snippet "$modules" "$modules" "$package"
    echo "openapi-check --real: CNPinningOpenAPI built (its snippet included) and tested, and the snippet type-checked, against swift-openapi-runtime $runtimeVersion and swift-http-types $typesVersion"
  done
  # The modules of 1.0.0 are the last built: their public declarations, recorded.
  for module in HTTPTypes:swift-http-types:"$types" OpenAPIRuntime:swift-openapi-runtime:"$runtime"; do
    IFS=: read -r name repository clone <<<"$module"
    swift-synthesize-interface -module-name "$name" -I "$modules" -o "$scratch/$name.synthesized"
    python3 - "$scratch/$name.synthesized" "$name" "$repository" "$(git -C "$clone" rev-parse '1.0.0^{commit}')" \
      "$package/Interfaces/$name.swiftinterface" <<'PY'
import re, subprocess, sys
source, name, repository, commit, target = sys.argv[1:]
compiler = subprocess.run(["swiftc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
# swift-synthesize-interface prints declarations without bodies, as a module interface has them,
# but with doc comments (left out: only declarations are recorded), without accessors on
# subscripts and on properties in extensions (given `{ get }`: a setter the transport used would
# fail the check rather than pass it), and with @inlinable, which an interface allows only with a
# body (dropped).
lines, depth, in_extension = [], 0, False
for line in open(source):
    if re.match(r"\s*///", line):
        continue
    text = re.sub(r"@(inlinable|usableFromInline|_alwaysEmitIntoClient) ", "", line.rstrip("\n"))
    stripped = text.strip()
    if depth == 0 and re.match(r"(@\S+\s+)*extension\b", stripped):
        in_extension = True
    bare = "{" not in stripped and not stripped.endswith("}")
    if bare and re.search(r"\bsubscript\b.*->", stripped):
        text += " { get }"
    elif bare and in_extension and depth == 1 and re.match(r"(public |open )?(static |class )?var ", stripped):
        text += " { get }"
    depth += text.count("{") - text.count("}")
    if depth == 0:
        in_extension = False
    lines.append(text)
body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
header = f"""// swift-interface-format-version: 1.0
// swift-compiler-version: {compiler}
// swift-module-flags: -module-name {name} -swift-version 5
// The public declarations of {repository} 1.0.0 (github.com/apple/{repository}, commit {commit};
// Apache-2.0), as swift-synthesize-interface prints the built module, without doc comments; for
// type-checking CNPinningOpenAPI without the package. Written by
// `scripts/openapi-check.sh --real`; not edited by hand.
import Swift
import _Concurrency
import _StringProcessing
"""
open(target, "w").write(header + body + "\n")
PY
  done
  rm -rf "$scratch"
  echo "openapi-check --real: CNPinningOpenAPI/Interfaces recorded from swift-http-types and swift-openapi-runtime 1.0.0"
  exit 0
fi

(cd "$root" && swift build --target CNPinningSession >/dev/null && swift build --target CNPinningTestKit >/dev/null)
bin=$(cd "$root" && swift build --show-bin-path)
c_modules "$root" "$bin"
swiftc=(swiftc -swift-version 6 -parse-as-library -wmo -I "$out" -I "$bin/Modules" "${cmodules[@]}")

# The recorded interfaces, compiled into modules.
build_interfaces() {
  rm -rf "$out"
  mkdir -p "$out"
  for name in HTTPTypes OpenAPIRuntime; do
    swiftc -frontend -compile-module-from-interface -module-name "$name" -I "$out" \
      "$package/Interfaces/$name.swiftinterface" -o "$out/$name.swiftmodule"
  done
}

# check_manifest SOURCES_ROOT: the article's Package.swift evaluates (nothing is resolved).
check_manifest() {
  local manifest
  manifest=$(mktemp -d)
  python3 - "$1/Sources/CNPinningOpenAPI/CNPinningOpenAPI.docc/CNPinningOpenAPI.md" "$manifest/Package.swift" <<'PY'
import sys
text = open(sys.argv[1]).read()
start = text.index("```swift\n", text.index("<!-- not a snippet: a Package.swift")) + len("```swift\n")
open(sys.argv[2], "w").write(text[start:text.index("\n```", start)] + "\n")
PY
  (cd "$manifest" && swift package dump-package >/dev/null) || return 1
  rm -rf "$manifest"
}

# check SOURCES_ROOT: the transport, its tests, the article's example and its Package.swift under SOURCES_ROOT.
check() {
  local sources=$1
  check_manifest "$sources" || return 1
  "${swiftc[@]}" -emit-module -module-name CNPinningOpenAPI -emit-module-path "$out/CNPinningOpenAPI.swiftmodule" \
    $(find "$sources/Sources/CNPinningOpenAPI" -name '*.swift' | sort) || return 1
  "${swiftc[@]}" -typecheck -module-name CNPinningOpenAPITests \
    $(find "$sources/Tests/CNPinningOpenAPITests" -name '*.swift' | sort) || return 1
  check_snippet "$out" "$bin/Modules" "$sources"
}

build_interfaces
check "$package"
echo "openapi-check: CNPinningOpenAPI, its tests and its article's example type-check (and its Package.swift evaluates) against swift-http-types' and swift-openapi-runtime's declarations recorded from 1.0.0; the root package depends on nothing"

if [ "${1:-}" = --self-test ]; then
  mistakes=(
    "Sources/CNPinningOpenAPI/CNPinnedTransport.swift|baseURL: URL, operationID: String) async throws|baseURL: URL, operationId: String) async throws|a send(_:body:baseURL:operationID:) with a misspelled label, which would not satisfy ClientTransport"
    "Sources/CNPinningOpenAPI/CNPinnedTransport.swift|typealias Element = HTTPBody.ByteChunk|typealias Element = Data|a response body of Data where HTTPBody wants ArraySlice<UInt8>"
    "Sources/CNPinningOpenAPI/CNPinnedTransport.swift|expectedContentLength.map { .known(\$0) }|expectedContentLength.map { .known(Int(\$0)) }|a length of Int where HTTPBody.Length.known wants Int64 (the old hand-written stub's mistake)"
    "Snippets/PinnedClient.swift|transport: CNPinnedTransport(session: session)|transport: session|the article passing the session where the client wants a transport"
    "Sources/CNPinningOpenAPI/CNPinningOpenAPI.docc/CNPinningOpenAPI.md|.executableTarget(|.executableTaget(|an article's Package.swift that does not evaluate"
  )
  for mistake in "${mistakes[@]}"; do
    IFS='|' read -r file from to what <<<"$mistake"
    copy=$(mktemp -d)
    cp -r "$package/Sources" "$package/Snippets" "$package/Tests" "$copy/"
    python3 - "$copy/$file" "$from" "$to" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if old not in text:
    sys.exit(f"openapi-check self-test: {path} no longer contains the text to break: {old!r}")
open(path, "w").write(text.replace(old, new, 1))
PY
    if check "$copy" >/dev/null 2>&1; then
      echo "openapi-check self-test: missed $what" >&2
      rm -rf "$copy"
      exit 1
    fi
    rm -rf "$copy"
    echo "openapi-check self-test: caught $what"
  done
  build_interfaces
fi
