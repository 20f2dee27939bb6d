#!/usr/bin/env bash
# Inputs no test wrote: crashes, hangs and memory errors the compiler cannot find.
# Coverage-guided fuzzing of CNPinning's input readers (Fuzz/), in a release build with the
# address sanitizer and libFuzzer's coverage instrumentation.
#
#   scripts/fuzz.sh SECONDS        every target for SECONDS (the CI smoke), then the budget check
#   scripts/fuzz.sh long [RUNS]    every target for RUNS executions (default 10 million), one
#                                  target per core, keeping the grown corpus in
#                                  Fuzz/.build/fuzz-corpus; then the budget check and line coverage
#   FUZZ_TARGETS="T1 T2"           (either mode) only those targets
#
# Every input the fuzzer makes runs under one second of CPU and 64 MiB of heap (both counted by
# FuzzDriver; libFuzzer's -timeout catches hangs). The budget check then runs the worst inputs
# we know how to write (FuzzBudget): no input under 1 MiB may take a loader more than a second
# or 64 MiB.
# Exits 1 on the first crash, broken invariant, budget overrun or hang, leaving the input under
# Fuzz/.build/fuzz-artifacts/TARGET; libFuzzer's output is in Fuzz/.build/fuzz-logs. FUZZ_SEED fixes libFuzzer's random seed (CI does).
set -euo pipefail
mode=smoke
if [ "${1:-}" = long ]; then mode=long; runs=${2:-10000000}; else seconds=${1:-60}; fi
cd "$(dirname "$0")/../Fuzz"

raw_targets=(FuzzCertificate FuzzConfiguration FuzzPolicy FuzzHostName)
# Fastest first, so that a long run that is stopped early has finished the most targets.
targets=(FuzzCertificate FuzzHostName FuzzConfiguration FuzzCertificateStructure FuzzConfigurationStructure FuzzPolicy
  FuzzPolicyStructure)
# FUZZ_TARGETS="A B" runs only those (a long run can be finished over several sittings).
if [ -n "${FUZZ_TARGETS:-}" ]; then read -ra targets <<<"$FUZZ_TARGETS"; fi
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
runtime=$(ls "$toolchain"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)
if [ -z "$runtime" ]; then
  echo "fuzz: the toolchain has no libFuzzer runtime (libclang_rt.fuzzer_no_main)" >&2
  exit 1
fi

# SwiftPM links every executable with main renamed, which clashes with libFuzzer's own main, so
# the targets start libFuzzer's driver themselves and link the runtime without its main.
# -enable-testing: the oracles read CNPinning's package API (strict CN values, the writers' escaping)
# through @testable imports.
swift build -c release --build-path .build/fuzz -Xswiftc -enable-testing \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | { grep -v "Cannot export local symbol" || true; }
bin=.build/fuzz/release
export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0
# The driver holds each input to 1 s of CPU and 64 MiB of heap; -timeout (wall time) catches hangs.
# A long run allows ten minutes of wall time: it shares the machine for hours, and a pause (a
# process stopped while a benchmark needs the machine, a busy neighbour) must not pass for a
# hang, as 10 s did once. The CPU budget above still stops any input slower than a second.
limits=(-timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=64)
if [ "$mode" = long ]; then
  limits[0]=-timeout=600
  # Resident memory must not creep towards the RSS limit over millions of inputs. Two causes,
  # measured on FuzzPolicyStructure: AddressSanitizer's 256 MiB quarantine (one input run 10,000
  # times stays at 66 MiB without it and climbs to 500 MiB with it) and its stack depot, which
  # keeps every distinct 30-frame allocation stack for ever: new paths add 3-5 MiB per thousand
  # inputs (flat with 4 frames, and a third faster). A crash input replayed by `make fuzz`
  # still gets full stacks.
  export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=64:allocator_release_to_os_interval_ms=5000:malloc_context_size=4"
fi

work=$(mktemp -d)
# A failing target stops the run; the targets still running in the background stop with it.
# (kill with no job to stop fails; under set -e that would become the script's exit status.)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
logs=.build/fuzz-logs
mkdir -p "$logs"

# Runs one target; prints "TARGET EXECUTIONS SECONDS" on success.
fuzz_one() {
  local target=$1 corpus=$2
  shift 2
  mkdir -p "$corpus" ".build/fuzz-artifacts/$target"
  local inputs=()
  [ -d "Corpus/$target" ] && inputs+=("Corpus/$target")
  [ -d "Regressions/$target" ] && inputs+=("Regressions/$target")
  local dictionary=()
  [ -f "Dictionaries/$target.dict" ] && dictionary=(-dict="Dictionaries/$target.dict")
  local log="$logs/$target.log" started
  started=$(date +%s)
  if ! "$bin/$target" "${limits[@]}" "${dictionary[@]}" -seed="${FUZZ_SEED:-0}" -print_final_stats=1 \
    -artifact_prefix=".build/fuzz-artifacts/$target/" "$@" "$corpus" "${inputs[@]}" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: $target failed; the input is in Fuzz/.build/fuzz-artifacts/$target/" >&2
    return 1
  fi
  echo "$target $(grep -aEo 'number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+') $(($(date +%s) - started))"
}

results="$work/results"
if [ "$mode" = smoke ]; then
  for target in "${targets[@]}"; do
    fuzz_one "$target" "$work/corpus/$target" -max_total_time="$seconds" >>"$results"
  done
else
  # One target per core; each keeps its grown corpus for the next long run.
  cores=$(nproc)
  pids=()
  for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n || exit 1; done
    fuzz_one "$target" ".build/fuzz-corpus/$target" -runs="$runs" >>"$results" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || exit 1; done
fi

# The budget check on the worst inputs we know how to write (Fuzz/Sources/FuzzBudget): time per
# loader call in a release build without sanitizers, and heap per input counted by the raw
# targets' driver (every check the target makes included, so at least what one loader holds).
swift build -c release --build-path .build/budget -Xswiftc -enable-testing --product FuzzBudget 2>&1 | tail -n 1
if ! .build/budget/release/FuzzBudget >"$work/budget-time.log" 2>&1; then
  cat "$work/budget-time.log" >&2
  echo "fuzz: a loader took more than its time budget on a worst-case input" >&2
  exit 1
fi
slowest_ms=$(grep -Eo '[0-9]+ ms' "$work/budget-time.log" | grep -Eo '[0-9]+' | sort -n | tail -n 1)
.build/budget/release/FuzzBudget write "$work/budget"
largest=()
for target in "${raw_targets[@]}"; do
  log="$work/$target-budget.log"
  if ! FUZZ_MEMORY_REPORT=1 "$bin/$target" -timeout=60 -rss_limit_mb=4096 -malloc_limit_mb=64 "$work/budget/$target"/* >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: $target went over the memory budget on a worst-case input" >&2
    exit 1
  fi
  peak_kib=$(grep -aEo 'peak [0-9]+ KiB' "$log" | grep -Eo '[0-9]+' | sort -n | tail -n 1)
  largest+=("$target $((peak_kib / 1024)) MiB")
done

summary=$(awk '{ printf "%s%s %d runs (%d/s)", (NR > 1 ? ", " : ""), $1, $2, ($3 > 0 ? $2 / $3 : $2) }' "$results")
echo "fuzz: ${mode} run, no crash: ${summary}"
echo "fuzz: worst-case inputs within budget: slowest loader call ${slowest_ms} ms (of 1000), largest heap per input $(IFS=,; echo "${largest[*]}" | sed 's/,/, /g') (of 64)"
if [ "$mode" = long ]; then
  ../scripts/fuzz-coverage.sh "${targets[@]}"
fi
