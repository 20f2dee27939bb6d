#!/usr/bin/env bash
# cnpin's process start beside curl's (issue 68, item 4): `--version`, and a single `get` of the
# benchmark's nginx on loopback (keep-alive and HTTP/2 port, the benchmark's root and pins), each
# run RUNS times (default 300), the four commands alternated. Prints the median wall time, the
# mean CPU (getrusage of the children) and page faults, and each ratio to curl's (target 1.2).
#   scripts/cnpin-start.sh [RUNS]
# Run it after `make cnpin` and `make bench-clients` on an idle machine; a measuring aid, not
# part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
release=Benchmarks/.build/static/release
cnpin=.build/cnpin/release/cnpin
[ -x "$cnpin" ] || { echo "cnpin-start: run make cnpin first"; exit 2; }
[ -x "$release/CNPinningPeerBenchmarks" ] || { echo "cnpin-start: run make bench-clients first"; exit 2; }
command -v curl >/dev/null || { echo "cnpin-start: curl is not installed"; exit 2; }
directory=.build/bench-peers
source scripts/bench-nginx.sh
url="https://127.0.0.1:$keep_alive_port/"
python3 - "$runs" "$cnpin" "$url" "$directory" <<'PY'
import resource, statistics, subprocess, sys, time
runs, cnpin, url, directory = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
commands = {
    "cnpin get": [cnpin, "get", url, "--config", f"{directory}/pins.json", "--cacert", f"{directory}/root.pem", "-s"],
    "curl get": ["curl", "-s", "--cacert", f"{directory}/root.pem", url],
    "cnpin --version": [cnpin, "--version"],
    "curl --version": ["curl", "--version"],
}
rows = {name: [] for name in commands}
for _ in range(runs):
    for name, command in commands.items():
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        if subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            sys.exit(f"cnpin-start: {' '.join(command)} failed")
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        rows[name].append((wall * 1000, cpu * 1000, after.ru_minflt - before.ru_minflt))
medians = {name: statistics.median(row[0] for row in rows[name]) for name in rows}
print(f"cnpin-start: {runs} runs each, alternated; ms")
for name, row in rows.items():
    peer = medians[name.replace("cnpin", "curl")]
    print(f"{name:16} wall p50 {medians[name]:6.2f}  cpu {statistics.mean(r[1] for r in row):6.2f}"
          f"  faults {statistics.mean(r[2] for r in row):7.1f}  ratio {medians[name] / peer:.2f}")
PY
