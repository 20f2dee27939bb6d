#!/usr/bin/env bash
# Which source lines the fuzz corpora reach: a runtime fact no compiler sees.
# Line coverage of CNPinning's sources reached by each fuzz target's corpus (the committed seeds
# and regressions plus what `scripts/fuzz.sh long` grew in Fuzz/.build/fuzz-corpus), measured with
# the toolchain's llvm-cov on a build instrumented for source coverage (no sanitizer).
#   scripts/fuzz-coverage.sh TARGET...
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
runtime=$(ls "$toolchain"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -n 1)
swift build -c release --build-path .build/coverage -Xswiftc -enable-testing \
  -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping \
  -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | { grep -v "Cannot export local symbol" || true; } | tail -n 1
sources=$(cd .. && pwd)/Sources/CNPinning/
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in "$@"; do
  inputs=()
  for folder in Corpus Regressions .build/fuzz-corpus; do [ -d "$folder/$target" ] && inputs+=("$folder/$target"); done
  LLVM_PROFILE_FILE="$work/$target-%p.profraw" SWIFT_BACKTRACE=enable=no \
    ".build/coverage/release/$target" -runs=0 -timeout=10 "${inputs[@]}" >"$work/$target.log" 2>&1 || true
  "$toolchain/llvm-profdata" merge -sparse "$work/$target"-*.profraw -o "$work/$target.profdata"
  "$toolchain/llvm-cov" export -summary-only -instr-profile="$work/$target.profdata" ".build/coverage/release/$target" \
    >"$work/$target.json"
  python3 - "$work/$target.json" "$sources" "$target" <<'PY'
import json, sys
data, root, target = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
files = [f for f in data["data"][0]["files"] if f["filename"].startswith(root)]
reached = [f for f in files if f["summary"]["lines"]["covered"] > 0]
def percent(group):
    total = sum(f["summary"]["lines"]["count"] for f in group)
    covered = sum(f["summary"]["lines"]["covered"] for f in group)
    return 100.0 * covered / total if total else 0.0, covered, total
reached_percent, covered, total = percent(reached)
print(f"fuzz coverage: {target}: {reached_percent:.1f}% of {total} lines in the {len(reached)} CNPinning files it reaches "
      f"({percent(files)[0]:.1f}% of all {percent(files)[2]} lines)")
PY
done
