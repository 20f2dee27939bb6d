#!/usr/bin/env python3
"""Where each request's instructions go, counted rather than timed: a runtime count no compiler makes.

Runs the peer benchmark's clients under valgrind's callgrind against the benchmark's nginx:
CNPinnedSession, libcurl's multi interface driven from C (Benchmarks/PeerC/multi-client.c) and
URLSession through `.cnPinned`, each in one long-lived process doing sequential keep-alive
requests over HTTP/2 (after their 200 requests of warm-up; exchange(_:), whose streamed body the
session sends over HTTP/1.1, beside libcurl from C over HTTP/1.1). Each runs twice, with LOW and HIGH
requests; the difference divided by HIGH - LOW is what one request costs, start-up and warm-up
left out (the budget's counts start at the end of each client's warm-up, `count_from_warm_up_end`,
so that the warm-up's TLS handshakes are not in them). Prints instructions per request by library, and for the parts of a request named in
PHASES (each inclusive of what it calls).

Instruction counts do not depend on what else the machine is doing, so two builds can be
compared on a busy two-core VM where timings vary by 2x between runs. They are not time: a
cache miss or a system call costs more than its instructions say (the kernel is not counted).
They must count the path a real run takes: valgrind slows the client fiftyfold, so the counted
runs lengthen the session's borrow budget by as much (VALGRIND_ENVIRONMENT), and the budget
checks that the network thread's share of the counted instructions is its share of a real run's
CPU time.

    scripts/instructions-per-request.py [--client CLIENT] --budget
        the budget (issue 68): exchange(_:) and data(for:), sequential and 8 at a time, each
        beside libcurl from C doing the same, in instructions (callgrind) and in heap allocations
        (DHAT); prints the ratios and exits 1 when one is over its budget (BUDGETS,
        ALLOCATION_BUDGET), 2 when it cannot count

    scripts/instructions-per-request.py [--client CLIENT] [LOW HIGH [CONCURRENCY [KIND]]]
        (defaults: 300 1300 1 pinned; KIND pinned is data(for:), pinned-executor the same from tasks
        that prefer the session's executor, exchange is exchange(_:) with its
        body read as it arrives; with CONCURRENCY > 1 the requests run that many at a time, and
        the instructions of every thread are counted)

    --client CLIENT: another build's CNPinningPeerClient (an older commit's, to compare) in
    place of this tree's.

`make bench-instructions` builds the clients (without the timed run) and runs the budget; the
breakdown runs after it or `make bench-peers`. Needs valgrind (Debian: valgrind). Not part of
`make test`.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "Benchmarks/.build/static/release")
DIRECTORY = os.path.join(ROOT, ".build/bench-peers")

# Parts of a request, by a piece of their mangled name (Swift) or their C name; each is
# inclusive of what it calls, so parts nested in others overlap.
PHASES = [
    ("Foundation's HTTPURLResponse initialiser", "HTTPURLResponseC3url10statusCode11httpVersion12headerFields"),
    ("  of which its field-name canonicalisation", "HTTPURLResponseC8sanitize"),
    ("response head parsed into fields", "ResponseHeadV6parsed"),
    ("libcurl's socket_action (the transfer)", "curl_multi_socket_action"),
    ("  of which the pin judgement before sending", "judgeBeforeRequest"),
    ("  of which header lines taken", "receiveHeader33_"),
    ("  of which the idle-time watch", "watchIdleTime33_"),
    ("transfer started (options bound, handle added)", "CurlMultiLoopC5start"),
    ("  of which options bound", "CurlEasyC4bind"),
    ("transfer finished (handle removed, reset)", "collectFinishedTransfers"),
    ("the URL checked (RequestTarget)", "RequestTargetVyAC20FoundationEssentials3URLV"),
    ("observer events and reports", "ConnectionEffectsV4emit"),
    ("FoundationNetworking's task internals read", "TaskInternalsO7reading"),
    ("libcurl options set (curl_easy_setopt)", "curl_easy_setopt"),
    ("libcurl handle reset (curl_easy_reset)", "curl_easy_reset"),
]


# Instructions per request against libcurl from C doing the same work: (kind, concurrency) → the
# most CNPinnedSession may count. exchange(_:) makes no Foundation response; data(for:) makes
# Foundation's HTTPURLResponse, most of what is left above libcurl's own. The same work includes
# the protocol: exchange(_:) streams its body, which the session never offers HTTP/2
# (RequestPlan.offersHTTP2), so its yardstick is libcurl from C over HTTP/1.1 (HTTP1_KINDS).
BUDGETS = [
    ("exchange(_:)", "exchange", 1, 1.3),
    ("exchange(_:)", "exchange", 8, 1.3),
    ("data(for:)", "pinned", 1, 1.6),
    ("data(for:)", "pinned", 8, 1.6),
]
BUDGET_RUNS = (200, 1200)
# The kinds whose requests go over HTTP/1.1 to a server that offers HTTP/2.
HTTP1_KINDS = {"exchange"}
# Heap allocations per request (valgrind's DHAT, every thread) against libcurl from C's: the most
# CNPinnedSession may make, for each kind in BUDGETS.
ALLOCATION_BUDGET = 1.5


def fail(message):
    print(f"instructions-per-request: {message}", file=sys.stderr)
    sys.exit(2)


def annotate(path, inclusive):
    """Instructions by function (name, object) from callgrind_annotate."""
    arguments = ["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}", path]
    output = subprocess.run(arguments, capture_output=True, text=True, check=True).stdout
    costs = collections.Counter()
    for line in output.splitlines():
        match = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)\[(.*)\]\s*$", line)
        if match:
            name = match.group(2).strip()
            # A function entered again while it runs (through the async runtime, or OpenSSL
            # inside a callback) is listed again as NAME'2, NAME'3: its own instructions there
            # are part of its exclusive cost, but its inclusive cost there holds the whole rest
            # of the run, not a cost of one call.
            base = re.sub(r"'\d+$", "", name)
            if base == name or not inclusive:
                costs[(base, os.path.basename(match.group(3)))] += int(match.group(1).replace(",", ""))
    return costs


def library(name):
    for prefix, label in (("libcurl", "libcurl"), ("libnghttp2", "nghttp2"), ("libssl", "OpenSSL"),
                          ("libcrypto", "OpenSSL"), ("libc.so", "libc (malloc, memcpy, …)"),
                          ("client", "the Swift executable (runtime, Foundation, CNPinning)"),
                          ("multi-client", "the C program's own code")):
        if name.startswith(prefix):
            return label
    return "other"


# Under valgrind a request takes about fifty times as long, so the session's 1 ms borrow budget
# (CNPinnedSessionConfiguration.borrowBudget: a request that finds the session idle drives
# libcurl on its own thread for that long) would send every sequential request to the network
# thread, a path a real run takes for under 1 % of them. The counted runs give the budget the
# same factor (the client reads this variable), and `path_check` shows that the counted path is
# the real one.
VALGRIND_ENVIRONMENT = dict(os.environ, CNPINNING_BENCH_BORROW_BUDGET_MS="50")
# Requests in the run without valgrind whose threads' CPU times `path_check` reads.
NATIVE_RUN = 10_000
# The longest that run may take (seconds; it takes about one).
NATIVE_RUN_LIMIT = 120
# The most the network thread's share of a counted request and its share of a real run's CPU
# may differ by: more, and the budget would count a path real runs do not take.
PATH_TOLERANCE = 0.2
# What both clients print on standard error when their warm-up has ended (and the script is to
# zero the counts), and the longest the zeroing may take (seconds).
WARM_UP_ENDED = "warm-up ended"
ZERO_LIMIT = 120
# A piece of the mangled name of the function only the session's network thread runs.
NETWORK_THREAD_MARK = "MultiLoopC3run"


def callgrind(command, count, work, name, threads=False, from_warm_up_end=False):
    """Runs command(count) under callgrind; the path of its output (with threads, one per thread:
    PATH-01, PATH-02, …). With from_warm_up_end, counted from the end of the client's warm-up on
    (see count_from_warm_up_end)."""
    out = os.path.join(work, f"{name}-{count}.out")
    arguments = (["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
                 + (["--separate-threads=yes"] if threads else []) + command(count))
    if from_warm_up_end:
        count_from_warm_up_end(arguments, name)
        return out
    result = subprocess.run(arguments, capture_output=True, text=True, env=VALGRIND_ENVIRONMENT)
    if result.returncode != 0:
        fail(f"{name} failed under valgrind:\n{result.stderr[-2000:]}")
    return out


def count_from_warm_up_end(arguments, name):
    """Runs a client under callgrind that stops at the end of its warm-up (WARM_UP_ENDED on
    standard error, then a wait for a line on standard input) and zeroes the counts of every
    thread there (callgrind_control --zero, through valgrind's gdbserver), so that the warm-up's
    connections are not counted. Their TLS handshakes moved the counts of two runs apart: at 8 at
    a time, 2 to 5 of the 6 first connections raced to a full handshake before a session could be
    resumed, about 6,000 instructions a request each at the budget's spread. callgrind's own
    `--zero-before` zeroes only the thread that calls the function it names."""
    environment = dict(VALGRIND_ENVIRONMENT, CNPINNING_BENCH_COUNT_FROM_MARK="1")
    process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=environment)
    said = []
    for line in process.stderr:
        said.append(line)
        if line.strip() == WARM_UP_ENDED:
            break
    else:
        process.wait()
        fail(f"{name} ended before its warm-up did, under valgrind:\n{''.join(said)[-2000:]}")
    zero = subprocess.run(["callgrind_control", "--zero", str(process.pid)], capture_output=True, text=True,
                          timeout=ZERO_LIMIT)
    if zero.returncode != 0 or "OK" not in zero.stdout:
        process.kill()
        process.wait()
        fail(f"callgrind_control could not zero {name}'s counts:\n{zero.stdout[-1000:]}{zero.stderr[-1000:]}")
    process.stdin.write("\n")
    process.stdin.close()
    said.append(process.stderr.read())
    if process.wait() != 0:
        fail(f"{name} failed under valgrind:\n{''.join(said)[-2000:]}")


def measure(command, low, high, work, name):
    """Per-request instructions: by library (exclusive) and by function (inclusive)."""
    runs = {}
    for count in (low, high):
        out = callgrind(command, count, work, name)
        runs[count] = (annotate(out, inclusive=False), annotate(out, inclusive=True))
    requests = high - low
    by_library = collections.Counter()
    for key in set(runs[low][0]) | set(runs[high][0]):
        by_library[library(key[1])] += (runs[high][0][key] - runs[low][0][key]) / requests
    by_function = collections.Counter()
    for key in set(runs[low][1]) | set(runs[high][1]):
        by_function[key[0]] += (runs[high][1][key] - runs[low][1][key]) / requests
    return by_library, by_function


def total(command, low, high, work, name):
    """Per-request instructions of every thread, from callgrind's totals alone, and the share of
    them the session's network thread ran."""
    totals, network = [], []
    for count in (low, high):
        out = callgrind(command, count, work, name, threads=True, from_warm_up_end=True)
        files = glob.glob(out + "-*")
        if not files:
            fail(f"callgrind wrote nothing to {out}-*")
        totals.append(0)
        network.append(0)
        for path in files:
            with open(path) as file:
                text = file.read()
            lines = [line for line in text.splitlines() if line.startswith(("totals:", "summary:"))]
            if not lines:
                fail(f"callgrind wrote no total to {path}")
            totals[-1] += int(lines[-1].split()[-1])
            if NETWORK_THREAD_MARK in text:
                network[-1] += int(lines[-1].split()[-1])
    per_request = (totals[1] - totals[0]) / (high - low)
    return per_request, (network[1] - network[0]) / (high - low) / per_request


# Runs of one build at 8 at a time differ by up to 2 % on our side and 10 % on C's (2026-12-07,
# one build: ours 125,600-127,900, libcurl from C 96,300-105,700): the order in which the
# threads' work interleaves changes how often libcurl moves transfers in and out of its pending
# set (six connections for eight requests over HTTP/1.1). A concurrent count is the median of
# three runs, and every run is printed.
CONCURRENT_RUNS = 3


def counted(command, concurrency, low, high, work, name):
    """`total`, or for a concurrent shape the run with the median count of CONCURRENT_RUNS;
    with every run's count."""
    runs = sorted((total(command, low, high, work, name) for _ in range(1 if concurrency == 1 else CONCURRENT_RUNS)),
                  key=lambda run: run[0])
    return runs[len(runs) // 2], [run[0] for run in runs]


def listed(counts):
    """Counts as a list for a reader: 125,601, 127,801, 127,870."""
    return ", ".join(f"{count:,.0f}" for count in counts)


def native_network_share(command):
    """The session's network thread's share of the CPU time of a run without valgrind
    (NATIVE_RUN requests; each thread's time read from /proc until the process ends)."""
    errors = tempfile.TemporaryFile()
    process = subprocess.Popen(command(NATIVE_RUN), stdout=subprocess.DEVNULL, stderr=errors)
    ticks = {}
    deadline = time.monotonic() + NATIVE_RUN_LIMIT
    while process.poll() is None:
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            fail(f"the run without valgrind took over {NATIVE_RUN_LIMIT} s")
        try:
            threads = os.listdir(f"/proc/{process.pid}/task")
        except OSError:
            break
        for thread in threads:
            try:
                with open(f"/proc/{process.pid}/task/{thread}/stat") as file:
                    stat = file.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            ticks[thread] = (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]) + int(fields[12]))
        time.sleep(0.02)
    if process.wait() != 0:
        errors.seek(0)
        fail(f"the run without valgrind failed:\n{errors.read().decode(errors='replace')[-2000:]}")
    everything = sum(count for _, count in ticks.values())
    if everything == 0:
        fail("the run without valgrind used no CPU time that /proc showed")
    return sum(count for name, count in ticks.values() if name.startswith("CNPSession-")) / everything


def allocations(command, low, high):
    """Per-request heap allocations of every thread (DHAT's total blocks)."""
    counts = []
    for count in (low, high):
        result = subprocess.run(["valgrind", "--tool=dhat", "--dhat-out-file=/dev/null"] + command(count),
                                capture_output=True, text=True, env=VALGRIND_ENVIRONMENT)
        match = re.search(r"Total:\s+[\d,]+ bytes in ([\d,]+) blocks", result.stderr)
        if result.returncode != 0 or not match:
            fail(f"DHAT gave no total:\n{result.stderr[-2000:]}")
        counts.append(int(match.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / (high - low)


def phase_cost(by_function, pattern):
    matches = [cost for name, cost in by_function.items() if pattern in name]
    return max(matches) if matches else None


class Peers:
    """The clients (the Swift one without the DWARF 5 valgrind 3.19 cannot read) and the
    benchmark's nginx, for as long as the `with` lasts."""

    def __init__(self, client=None):
        self.given_client = client

    def __enter__(self):
        for tool in ("valgrind", "callgrind_annotate", "strip"):
            if not shutil.which(tool):
                fail(f"{tool} is not installed (Debian: apt-get install valgrind binutils)")
        client = self.given_client or os.path.join(RELEASE, "CNPinningPeerClient")
        self.c_client = os.path.join(DIRECTORY, "multi-client")
        for path in (client, self.c_client, os.path.join(RELEASE, "CNPinningPeerBenchmarks")):
            if not os.access(path, os.X_OK):
                fail(f"{path} is missing: run make bench-instructions (it builds the clients)")
        self.work = tempfile.mkdtemp(prefix="instructions-")
        self.server = None
        self.client = os.path.join(self.work, "client")
        subprocess.run(["strip", "--strip-debug", "-o", self.client, client], check=True)
        log = open(os.path.join(self.work, "serve.log"), "w+")
        self.server = subprocess.Popen(
            [os.path.join(RELEASE, "CNPinningPeerBenchmarks"), "serve", DIRECTORY, "3600"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        port = None
        for _ in range(100):
            log.seek(0)
            match = re.search(r"HTTP/2 on (\d+)", log.read())
            if match:
                port = match.group(1)
                break
            time.sleep(0.1)
        if port is None:
            log.seek(0)
            self.__exit__()
            fail(f"nginx did not start:\n{log.read()}")
        self.url = f"https://127.0.0.1:{port}/"
        self.root, self.pins = os.path.join(DIRECTORY, "root.pem"), os.path.join(DIRECTORY, "pins.json")
        key = subprocess.run(
            f"openssl x509 -inform der -in {DIRECTORY}/leaf.der -pubkey -noout | openssl pkey -pubin -outform der"
            " | openssl dgst -sha256 -binary | base64", shell=True, capture_output=True, text=True, check=True)
        self.pin = "sha256//" + key.stdout.strip()
        return self

    def __exit__(self, *_):
        if self.server:
            os.killpg(self.server.pid, 9)
            self.server.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def ours(self, kind, concurrency):
        return lambda n: [self.client, "in-process", kind, self.root, self.pins, self.url, str(n), str(concurrency)]

    def libcurl(self, concurrency, kind):
        """libcurl from C doing the work of `kind`'s requests, the protocol included."""
        version = ["--http1.1"] if kind in HTTP1_KINDS else []
        return lambda n: [self.c_client] + version + [self.url, self.root, self.pin, str(n), str(concurrency)]


def budget(client=None):
    """Each budget counted; exit 1 when one is over."""
    low, high = BUDGET_RUNS
    print(f"instructions per keep-alive request to nginx offering HTTP/2, CNPinnedSession against libcurl "
          f"from C doing the same (callgrind, every thread, runs of {low} and {high} requests after 200 of warm-up, "
          f"the median of {CONCURRENT_RUNS} for 8 at a time); "
          f"exchange(_:) streams its body, which the session sends over HTTP/1.1, and is compared with libcurl "
          f"from C over HTTP/1.1")
    print(f"{'':44s}{'CNPinnedSession':>17s}{'libcurl (C)':>14s}{'ratio':>8s}{'budget':>8s}")
    over = []
    with Peers(client) as peers:
        paths = []
        for call, kind, concurrency, limit in BUDGETS:
            (ours, counted_share), our_runs = counted(
                peers.ours(kind, concurrency), concurrency, low, high, peers.work, f"{kind}-{concurrency}")
            (theirs, _), their_runs = counted(
                peers.libcurl(concurrency, kind), concurrency, low, high, peers.work, f"c-{kind}-{concurrency}")
            paths.append((call, kind, concurrency, counted_share, native_network_share(peers.ours(kind, concurrency))))
            ratio = ours / theirs
            shape = "sequential" if concurrency == 1 else f"{concurrency} at a time"
            label = f"{call}, {shape}" + (", HTTP/1.1" if kind in HTTP1_KINDS else "")
            print(f"{label:44s}{ours:17,.0f}{theirs:14,.0f}{ratio:8.2f}{limit:8.2f}" + ("  OVER" if ratio > limit else ""))
            if len(our_runs) > 1:
                print(f"  (the median of: {listed(our_runs)} and {listed(their_runs)})")
            if ratio > limit:
                over.append(label)
        print("the session's network thread's share: of the instructions counted, and of the CPU time of "
              f"{NATIVE_RUN:,} requests without valgrind (a larger difference than {PATH_TOLERANCE} would mean "
              "the count took another path)")
        for call, kind, concurrency, counted_share, native_share in paths:
            shape = "sequential" if concurrency == 1 else f"{concurrency} at a time"
            print(f"{call + ', ' + shape:44s}{counted_share:17.0%}{native_share:14.0%}")
            if abs(counted_share - native_share) > PATH_TOLERANCE:
                fail(f"{call}, {shape}: the network thread ran {counted_share:.0%} of the counted instructions "
                     f"but {native_share:.0%} of a real run's CPU time: the count took another path")
        print(f"heap allocations per request (DHAT, every thread), budget {ALLOCATION_BUDGET}")
        for call, kind, concurrency, _ in BUDGETS:
            ours = allocations(peers.ours(kind, concurrency), low, high)
            theirs = allocations(peers.libcurl(concurrency, kind), low, high)
            ratio = ours / theirs
            shape = "sequential" if concurrency == 1 else f"{concurrency} at a time"
            label = f"{call}, {shape}" + (", HTTP/1.1" if kind in HTTP1_KINDS else "") + ", allocations"
            print(f"{label:44s}{ours:17,.1f}{theirs:14,.1f}{ratio:8.2f}{ALLOCATION_BUDGET:8.2f}"
                  + ("  OVER" if ratio > ALLOCATION_BUDGET else ""))
            if ratio > ALLOCATION_BUDGET:
                over.append(label)
    if over:
        print(f"bench-instructions: over budget: {', '.join(over)}", file=sys.stderr)
        sys.exit(1)
    print("bench-instructions: every ratio within its budget")


def main():
    words = sys.argv[1:]
    client = None
    if words[:1] == ["--client"] and len(words) >= 2:
        client, words = words[1], words[2:]
    if words == ["--budget"]:
        budget(client)
        return
    try:
        low, high = (int(words[0]), int(words[1])) if len(words) >= 2 else (300, 1300)
        concurrency = int(words[2]) if len(words) >= 3 else 1
    except ValueError:
        fail("LOW, HIGH and CONCURRENCY must be whole numbers")
    kind = words[3] if len(words) >= 4 else "pinned"
    if not 0 < low < high <= 100_000:
        fail("LOW and HIGH must be request counts with 0 < LOW < HIGH <= 100000")
    if not 1 <= concurrency <= 100 or kind not in ("pinned", "pinned-executor", "exchange") or len(words) > 4 or len(words) == 1:
        fail("usage: instructions-per-request.py [--client CLIENT] --budget | [LOW HIGH [CONCURRENCY (1-100) [pinned|pinned-executor|exchange]]]")
    with Peers(client) as peers:
        programs = [
            ("CNPinnedSession", peers.ours(kind, concurrency)),
            ("libcurl (C)", peers.libcurl(concurrency, kind)),
        ]
        if kind == "pinned":
            programs.append(("URLSession+cnPinned", peers.ours("urlprotocol", concurrency)))
        results = {name: measure(command, low, high, peers.work, name.split()[0]) for name, command in programs}

    names = [name for name, _ in programs]
    shape = "sequential keep-alive" if concurrency == 1 else f"keep-alive, {concurrency} at a time,"
    call = {"pinned": "data(for:)", "pinned-executor": "data(for:) preferring session.executor"}.get(kind, "exchange(_:)")
    print(f"instructions per {shape} request ({call}) to nginx offering HTTP/2 "
          f"(callgrind, runs of {low} and {high} requests after 200 of warm-up)")
    print(f"{'':56s}" + "".join(f"{name:>22s}" for name in names))
    libraries = sorted({label for by_library, _ in results.values() for label in by_library},
                       key=lambda label: -max(results[name][0][label] for name in names))
    for label in libraries + ["total"]:
        values = [sum(results[name][0].values()) if label == "total" else results[name][0][label] for name in names]
        if label == "total" or max(abs(value) for value in values) >= 100:
            print(f"{label:56s}" + "".join(f"{value:22,.0f}" for value in values))
    print("parts of a request (each with what it calls):")
    for label, pattern in PHASES:
        values = [phase_cost(results[name][1], pattern) for name in names]
        if any(value for value in values):
            print(f"{label:56s}" + "".join(f"{value:22,.0f}" if value else f"{'—':>22s}" for value in values))
    ours, theirs = (sum(results[name][0].values()) for name in names[:2])
    response = phase_cost(results[names[0]][1], PHASES[0][1]) or 0
    print(f"CNPinnedSession / libcurl from C: {ours / theirs:.2f}; with only Foundation's response object added to "
          f"the C program's work: {(theirs + response) / theirs:.2f}")


if __name__ == "__main__":
    main()
