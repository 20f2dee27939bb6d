#!/usr/bin/env bash
# Which public API changes are deliberate, which the compiler cannot know: the interfaces to compare.
# The public API's interfaces, for `make api-check` and `make api-baseline`: each library module
# product of the Linux build (CNPinning, CNPinningSession, CNPinningTestKit) and of
# the Apple build (`make apple-check`'s modules, compiled against the SDK stubs), synthesized by
# the toolchain's swift-synthesize-interface into .build/api/<platform>-<Module>.swiftinterface,
# then compared with (or written to) docs/api/ by scripts/api-surface.py.
#   scripts/api-surface.sh --check | --write
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?--check or --write}
out=.build/api
build=.build/docs-build
rm -rf "$out"
mkdir -p "$out"
synthesize=$(command -v swift-synthesize-interface || echo "$(dirname "$(readlink -f "$(command -v swift)")")/swift-synthesize-interface")
target=$(uname -m)-unknown-linux-gnu

# Linux: the modules as SwiftPM builds them, with the C modules they were built against.
# One target per call: swift build builds only the last of several --target options.
for module in CNPinningSession CNPinningTestKit; do
  swift build --target "$module" --build-path "$build" 2>&1 | { grep -E "error|warning: " || true; }
done
products=$(swift build --target CNPinningSession --build-path "$build" --show-bin-path)
c_modules=()
for map in Sources/COpenSSL/module.modulemap Sources/CCurl/module.modulemap "$products"/CNPinningShims.build/module.modulemap \
  "$products"/CNPinningCurlShims.build/module.modulemap; do
  c_modules+=(-Xcc "-fmodule-map-file=$map")
done
c_modules+=(-Xcc -I -Xcc Sources/CNPinningShims/include -Xcc -I -Xcc Sources/CNPinningCurlShims/include)
for module in CNPinning CNPinningSession CNPinningTestKit; do
  "$synthesize" -module-name "$module" -I "$products/Modules" "${c_modules[@]}" -target "$target" \
    -o "$out/linux-$module.swiftinterface"
done

# Apple: the modules `make apple-check` emits without the Linux define, against the stubs.
scripts/apple-check.sh >/dev/null
for module in CNPinning CNPinningSession; do
  "$synthesize" -module-name "$module" -I .build/apple-check -target "$target" -o "$out/apple-$module.swiftinterface"
done

python3 scripts/api-surface.py "$mode" docs/api "$out"/*.swiftinterface
if [ "$mode" = --check ]; then
  # The check itself: a list with its last line gone must be noticed.
  rm -rf "$out/altered" && cp -r docs/api "$out/altered"
  sed -i '$ d' "$out/altered/linux-CNPinning.txt"
  if python3 scripts/api-surface.py --check "$out/altered" "$out"/*.swiftinterface >/dev/null 2>&1; then
    echo "api-check: a list with a line missing went unnoticed" >&2
    exit 1
  fi
fi
