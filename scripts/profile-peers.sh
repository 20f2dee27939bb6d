#!/usr/bin/env bash
# Where a whole process spends its CPU: a runtime profile, no compile-time fact.
# Where one whole process spends its CPU: the peer benchmark's CNPinnedSession client against the
# curl CLI with --pinnedpubkey, each making REQUESTS requests (default 1) to the same nginx, each
# run RUNS times (default 30) under `perf record`. Prints milliseconds of CPU per process by
# thread, by library and, for the kernel, by cause, with page faults and wall time: the
# per-process cost that `make bench-peers` ratios carry on top of the per-request work.
#   scripts/profile-peers.sh [RUNS] [REQUESTS] [keepalive|close]
# Run it after `make bench-peers` (which builds the clients) on an idle machine. Needs perf
# (Debian: linux-perf) and python3; a profiling aid, not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
requests=${2:-1}
server=${3:-keepalive}
release=Benchmarks/.build/static/release
for tool in perf python3 openssl curl; do
  command -v "$tool" >/dev/null || { echo "profile-peers: $tool is not installed (perf: apt-get install linux-perf)"; exit 2; }
done
[ -x "$release/CNPinningPeerClient" ] || { echo "profile-peers: run make bench-peers first (it builds the clients)"; exit 2; }
directory=.build/bench-peers
"$release/CNPinningPeerBenchmarks" prepare "$directory"
source scripts/bench-nginx.sh
port=$keep_alive_port
if [ "$server" = close ]; then port=$closing_port; fi
url="https://127.0.0.1:$port/"
pin="sha256//$(openssl x509 -in "$directory/leaf.der" -inform der -pubkey -noout | openssl pkey -pubin -outform der |
  openssl dgst -sha256 -binary | base64)"
for _ in $(seq "$requests"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done >"$work/curl.conf"
ours=("$release/CNPinningPeerClient" pinned "$directory/root.pem" "$directory/pins.json" "$url" "$requests" 1)
theirs=(curl -s -f --cacert "$directory/root.pem" --pinnedpubkey "$pin" -K "$work/curl.conf")
"${ours[@]}" && "${theirs[@]}" || { echo "profile-peers: a client failed"; exit 2; }
for name in ours theirs; do
  declare -n command=$name
  perf stat -r "$runs" -e duration_time,task-clock,page-faults,context-switches -x, -o "$work/$name.stat" "${command[@]}"
  perf record -q -F 20000 -g -o "$work/$name.data" -- sh -c "for i in \$(seq $runs); do \"\$@\"; done" sh "${command[@]}" \
    2>/dev/null
  perf script -i "$work/$name.data" -F comm,tid,period,ip,sym,dso 2>/dev/null >"$work/$name.script"
done
echo "profile-peers: $requests request(s) per process to nginx ($server), $runs processes each, CPU ms per process"
python3 - "$work" "$runs" <<'PY'
import collections, sys
work, runs = sys.argv[1], int(sys.argv[2])

def thread(comm):
    if comm.startswith("CNPSession"): return "thread: session loop"
    if "qos" in comm: return "thread: dispatch workers"
    return "thread: main (and curl's resolver)"

def kernel_cause(symbols):
    """What a kernel sample was doing: a page fault, else the system call it serves."""
    if any("exc_page_fault" in symbol for symbol in symbols): return "page faults"
    if any(symbol in ("do_exit", "exit_mmap") for symbol in symbols): return "exit and unmapping"
    call = next((symbol.split("_sys_", 1)[1] for symbol in symbols
                 if symbol.startswith(("__x64_sys_", "__do_sys_"))), None)
    if call is None: return "interrupts and other"
    if any(symbol.startswith(("tcp_", "sock_", "unix_", "inet_")) for symbol in symbols) or call in (
            "sendto", "recvfrom", "sendmsg", "recvmsg", "connect", "socket", "poll", "ppoll", "epoll_wait"):
        return "network and poll"
    for cause, calls in (("exec", ("execve",)), ("exit and unmapping", ("exit_group", "exit", "munmap")),
                         ("mmap, mprotect, brk", ("mmap", "mprotect", "brk", "madvise")),
                         ("thread creation", ("clone", "clone3")), ("sched_yield (spinning)", ("sched_yield",)),
                         ("futex", ("futex",)),
                         ("files", ("openat", "read", "write", "close", "newfstatat", "statx", "readlink",
                                    "getdents64", "pread64", "lseek", "fstat", "access"))):
        if call in calls: return cause
    return "other system calls"

def library(dso):
    for key, name in (("kernel", "kernel"), ("ld-linux", "dynamic loader (ld.so)"), ("libcrypto", "OpenSSL"),
                      ("libssl", "OpenSSL"), ("libcurl", "libcurl, nghttp2"), ("libnghttp2", "libcurl, nghttp2"),
                      ("libc.so", "libc"), ("CNPinningPeerClient", "client binary (Swift runtime, Foundation, CNPinning)"),
                      ("curl", "client binary (curl)")):
        if key in dso: return name
    return "other libraries"

def profile(name):
    totals = collections.Counter()
    for sample in open(f"{work}/{name}.script").read().split("\n\n"):
        lines = [line.strip() for line in sample.strip().split("\n") if line.strip()]
        if len(lines) < 2: continue
        head = lines[0].split()
        comm, period = head[0], int(head[2])
        if comm in ("sh", "seq"): continue
        frames = [line.split(None, 1) for line in lines[1:]]
        leaf_dso = frames[0][1].rsplit("(", 1)[-1].rstrip(")") if len(frames[0]) > 1 else "?"
        ms = period / 1e6 / runs
        totals["total"] += ms
        totals[thread(comm)] += ms
        lib = library(leaf_dso)
        totals["library: " + lib] += ms
        if lib == "kernel":
            symbols = [f[1].split()[0] for f in frames if len(f) > 1]
            totals["kernel: " + kernel_cause(symbols)] += ms
    stat = {}
    for line in open(f"{work}/{name}.stat"):
        fields = line.strip().split(",")
        if len(fields) > 2 and fields[0] and fields[0][0].isdigit(): stat[fields[2]] = float(fields[0])
    return totals, stat

ours, our_stat = profile("ours")
theirs, their_stat = profile("theirs")
print(f"{'':58} {'CNPinnedSession':>15} {'curl':>8} {'difference':>10}")
for event in ("duration_time", "task-clock", "page-faults", "context-switches"):
    a, b = our_stat.get(event, 0), their_stat.get(event, 0)
    if event == "duration_time": a, b, event = a / 1e6, b / 1e6, "wall time, ms"
    print(f"{event + ' (perf stat)':58} {a:15.1f} {b:8.1f} {a - b:+10.1f}")
keys = sorted(set(ours) | set(theirs), key=lambda k: (k != "total", k.split(":")[0], -(ours[k] + theirs[k])))
for key in keys:
    print(f"{key:58} {ours[key]:15.2f} {theirs[key]:8.2f} {ours[key] - theirs[key]:+10.2f}")
PY
