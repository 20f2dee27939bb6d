#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for SECONDS (default 60), starting from the
# committed seed corpus and regression inputs. Prints the executions per target; exits 1 on the
# first crash, broken invariant or hang, leaving the input under Fuzz/.build/fuzz-artifacts.
# FUZZ_SEED fixes libFuzzer's random seed (CI does, so that a run can be repeated exactly).
set -euo pipefail
seconds=${1:-60}
cd "$(dirname "$0")/../Fuzz"

toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
runtime=$(ls "$toolchain"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)
if [ -z "$runtime" ]; then
  echo "fuzz: the toolchain has no libFuzzer runtime (libclang_rt.fuzzer_no_main)" >&2
  exit 1
fi

# SwiftPM links every executable with main renamed, which clashes with libFuzzer's own main, so
# the targets start libFuzzer's driver themselves and link the runtime without its main.
swift build --build-path .build/fuzz \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | { grep -v "Cannot export local symbol" || true; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=()
for target in FuzzCertificate FuzzConfiguration FuzzPolicy FuzzHostName; do
  mkdir -p "$work/$target" ".build/fuzz-artifacts/$target"
  inputs=("Corpus/$target")
  [ -d "Regressions/$target" ] && inputs+=("Regressions/$target")
  log="$work/$target.log"
  if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 timeout $((seconds + 120)) \
    ".build/fuzz/debug/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -seed="${FUZZ_SEED:-0}" \
    -artifact_prefix=".build/fuzz-artifacts/$target/" "$work/$target" "${inputs[@]}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "fuzz: $target failed; the input is in Fuzz/.build/fuzz-artifacts/$target/" >&2
    exit 1
  fi
  runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
  summary+=("$target $runs")
done
echo "fuzz: ${seconds}s per target, no crash: $(IFS=,; echo "${summary[*]}" | sed 's/,/, /g') executions"
