#!/usr/bin/env bash
# Whether the DocC articles, links and doc comments are whole: the compiler checks none of them.
# Builds the API documentation with the toolchain's docc alone (no plug-in package): symbol
# graphs of CNPinning and CNPinningSession extracted from a debug build (their extensions of
# Foundation's types as extension blocks, which DocC renders), a doc-comment check (every public
# symbol, extensions included, documented), then one .doccarchive per module in .build/docs,
# warnings as errors, and a check that every extended type has its page.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/docs
graphs=$out/symbol-graphs
build=.build/docs-build
rm -rf "$out"/*.doccarchive "$graphs"
mkdir -p "$graphs"
swift build --target CNPinningSession --build-path "$build" 2>&1 | { grep -E "error|warning: " || true; }
products=$(swift build --target CNPinningSession --build-path "$build" --show-bin-path)
# The C modules the session's Swift modules were built against, as SwiftPM passes them.
c_modules=()
for map in Sources/COpenSSL/module.modulemap Sources/CCurl/module.modulemap "$products"/CNPinningShims.build/module.modulemap \
  "$products"/CNPinningCurlShims.build/module.modulemap; do
  c_modules+=(-Xcc "-fmodule-map-file=$map")
done
c_modules+=(-Xcc -I -Xcc Sources/CNPinningShims/include -Xcc -I -Xcc Sources/CNPinningCurlShims/include)
# extract MODULE: MODULE's public symbols.
extract() {
  swift-symbolgraph-extract -module-name "$1" -I "$products/Modules" "${c_modules[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public -emit-extension-block-symbols \
    -output-dir "$graphs"
}
extract CNPinning
extract CNPinningSession
# Each module's graph and the graphs of its extensions to other modules' types (URLSession.cnPinned…).
python3 scripts/doc-coverage.py "$graphs"/CNPinning*.symbols.json
docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
# convert MODULE GRAPHS ARCHIVE WHAT: MODULE's catalog (when it has one) over the symbol graphs
# in GRAPHS into ARCHIVE, warnings as errors; on a problem, docc's log (ARCHIVE.log), then WHAT.
convert() {
  local module=$1 graph_dir=$2 archive=$3 what=$4 catalog=()
  [ -d "Sources/$module/$module.docc" ] && catalog=("Sources/$module/$module.docc")
  "$docc" convert "${catalog[@]}" --additional-symbol-graph-dir "$graph_dir" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.cnpinning.$module" \
    --output-path "$archive" --warnings-as-errors >"$archive.log" 2>&1 || {
    cat "$archive.log" >&2
    echo "docs: docc reported problems in $what" >&2
    exit 1
  }
}
for module in CNPinning CNPinningSession; do
  rm -rf "${graphs:?}/$module"
  mkdir -p "$graphs/$module"
  # A module's own graph and the extensions it declares on other modules' types.
  cp "$graphs/$module.symbols.json" "$graphs/$module"/
  cp "$graphs/$module@"*.symbols.json "$graphs/$module"/ 2>/dev/null || true
  convert "$module" "$graphs/$module" "$out/$module.doccarchive" "$module"
  # Extensions to other modules' types are rendered, a page for each extended type's module.
  for extension in "$graphs/$module"/"$module@"*.symbols.json; do
    [ -e "$extension" ] || continue
    extended=$(basename "$extension" .symbols.json)
    extended=${extended#*@}
    page="$out/$module.doccarchive/data/documentation/${module,,}/${extended,,}"
    [ -d "$page" ] || { echo "docs: $module's extensions of $extended are not rendered ($page)" >&2; exit 1; }
  done
done

# Every doc comment's links, internal and package ones included: the same catalogs over graphs
# of every symbol down to internal access (and the libcurl wrapper's, which has no catalog),
# checked and thrown away (DocC reads only the graphs' doc comments), so that a renamed symbol a
# doc comment names as ``Link`` fails the build.
for module in CNPinning CNPinningSession CNPinningCurl; do
  internal=$graphs/internal/$module
  rm -rf "$internal"
  mkdir -p "$internal"
  swift-symbolgraph-extract -module-name "$module" -I "$products/Modules" "${c_modules[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level internal -emit-extension-block-symbols \
    -output-dir "$internal"
  convert "$module" "$internal" "$graphs/internal/$module.doccarchive" "$module's doc comments (internal symbols included)"
done

# The Apple path: the same catalogs over the graphs of the modules `make apple-check` builds
# without the Linux define, so that an article linking a Linux-only symbol (or a type's module
# that differs between the platforms) fails here rather than on the Swift Package Index's Mac.
# The stubs put URLSession in FoundationNetworking, where a Mac has it in Foundation: articles
# name those extensions in code voice, never as links.
if grep -rnE '``(Foundation|FoundationNetworking)/' Sources --include=*.md --include=*.swift; then
  echo "docs: a link into Foundation's or FoundationNetworking's pages resolves on one platform only; use code voice" >&2
  exit 1
fi
scripts/apple-check.sh >/dev/null
apple=$out/apple
rm -rf "$apple"
mkdir -p "$apple/symbol-graphs"
extract_apple() {
  swift-symbolgraph-extract -module-name "$1" -I .build/apple-check -target "$(uname -m)-unknown-linux-gnu" \
    -minimum-access-level public -emit-extension-block-symbols -output-dir "$apple/symbol-graphs"
}
extract_apple CNPinning
extract_apple CNPinningSession
python3 scripts/doc-coverage.py "$apple/symbol-graphs"/CNPinning*.symbols.json
for module in CNPinning CNPinningSession; do
  mkdir -p "$apple/symbol-graphs/$module"
  cp "$apple/symbol-graphs/$module.symbols.json" "$apple/symbol-graphs/$module"/
  cp "$apple/symbol-graphs/$module@"*.symbols.json "$apple/symbol-graphs/$module"/ 2>/dev/null || true
  convert "$module" "$apple/symbol-graphs/$module" "$apple/$module.doccarchive" "$module as Apple platforms build it"
done
echo "docs: .build/docs/CNPinning.doccarchive and .build/docs/CNPinningSession.doccarchive (and the Apple path's in .build/docs/apple)"
