#!/usr/bin/env bash
# Whether CNPinningOpenAPI compiles against its outside packages' declarations, which SwiftPM here cannot fetch.
# Type-checks CNPinningOpenAPI (the package beside Examples/) without its outside dependencies,
# which this machine cannot fetch (`make openapi-check`): stub modules declare the signatures of
# swift-http-types and swift-openapi-runtime that the transport uses (CNPinningOpenAPI/Stubs,
# each saying where they come from), and the transport's sources and the DocC article's example
# are checked against them and against CNPinningSession as this build makes it. Also checks
# that the root package depends on nothing, so that a consumer of CNPinning or CNPinningSession
# resolves nothing new.
#   scripts/openapi-check.sh              the check
#   scripts/openapi-check.sh --self-test  also shows that it catches a wrong signature
# What it cannot see: the real packages' bodies and anything at run time (the exchange the
# transport maps onto is tested at run time in the main package).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/.build/openapi-check
package=$root/CNPinningOpenAPI

dependencies=$(cd "$root" && swift package show-dependencies --format json |
  python3 -c 'import json, sys; print(len(json.load(sys.stdin)["dependencies"]))')
if [ "$dependencies" != 0 ]; then
  echo "openapi-check: the root package depends on $dependencies packages; CNPinning and CNPinningSession must resolve nothing" >&2
  exit 1
fi

(cd "$root" && swift build --target CNPinningSession >/dev/null)
bin=$(cd "$root" && swift build --show-bin-path)
# CNPinningSession's module needs the C modules of its Linux targets to be found.
cmodules=(
  -Xcc "-fmodule-map-file=$root/Sources/COpenSSL/module.modulemap"
  -Xcc "-fmodule-map-file=$root/Sources/CCurl/module.modulemap"
  -Xcc "-fmodule-map-file=$bin/CNPinningShims.build/module.modulemap"
  -Xcc "-fmodule-map-file=$bin/CNPinningCurlShims.build/module.modulemap"
)
swiftc=(swiftc -swift-version 6 -parse-as-library -wmo -I "$out" -I "$bin/Modules" "${cmodules[@]}")

build_stubs() {
  rm -rf "$out"
  mkdir -p "$out"
  "${swiftc[@]}" -emit-module -module-name HTTPTypes -emit-module-path "$out/HTTPTypes.swiftmodule" \
    "$package/Stubs/HTTPTypes.swift"
  "${swiftc[@]}" -emit-module -module-name OpenAPIRuntime -emit-module-path "$out/OpenAPIRuntime.swiftmodule" \
    "$package/Stubs/OpenAPIRuntime.swift"
  "${swiftc[@]}" -emit-module -module-name GeneratedClient -emit-module-path "$out/GeneratedClient.swiftmodule" \
    "$package/Stubs/GeneratedClient.swift"
}

# check PACKAGE_ROOT: type-checks the transport and the article's example under PACKAGE_ROOT.
check() {
  local sources=$1
  "${swiftc[@]}" -emit-module -module-name CNPinningOpenAPI -emit-module-path "$out/CNPinningOpenAPI.swiftmodule" \
    $(find "$sources/Sources/CNPinningOpenAPI" -name '*.swift' | sort) || return 1
  swiftc -swift-version 6 -I "$out" -I "$bin/Modules" "${cmodules[@]}" -typecheck -module-name PinnedClient \
    -Xfrontend -import-module -Xfrontend GeneratedClient "$sources/Snippets/PinnedClient.swift" || return 1
}

build_stubs
check "$package"
echo "openapi-check: CNPinningOpenAPI and its article's example type-check against the stubs of swift-http-types and swift-openapi-runtime 1.0; the root package depends on nothing"

if [ "${1:-}" = --self-test ]; then
  mistakes=(
    "Sources/CNPinningOpenAPI/CNPinnedTransport.swift|baseURL: URL, operationID: String) async throws|baseURL: URL, operationId: String) async throws|a send(_:body:baseURL:operationID:) with a misspelled label, which would not satisfy ClientTransport"
    "Sources/CNPinningOpenAPI/CNPinnedTransport.swift|typealias Element = HTTPBody.ByteChunk|typealias Element = Data|a response body of Data where HTTPBody wants ArraySlice<UInt8>"
    "Snippets/PinnedClient.swift|transport: CNPinnedTransport(session: session)|transport: session|the article passing the session where the client wants a transport"
  )
  for mistake in "${mistakes[@]}"; do
    IFS='|' read -r file from to what <<<"$mistake"
    copy=$(mktemp -d)
    cp -r "$package/Sources" "$package/Snippets" "$copy/"
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
  build_stubs
fi
