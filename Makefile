# CNPinning — build, test and benchmark. Every target installs missing dependencies first.
SWIFT ?= swift
STRICT := -Xswiftc -warnings-as-errors
# Every public type says whether it is Sendable (the compiler's ExplicitSendable group, what
# -require-explicit-sendable turns on, as an error). For builds without tests only: SwiftPM's
# generated test runner declares public classes that say neither.
SENDABLE := -Xswiftc -Werror -Xswiftc ExplicitSendable
# A target may import only modules of its dependency closure (SwiftPM's own check); that it
# imports only its direct dependencies (the session no libcurl, only CNPinningCurl) is make lint's.
IMPORTS := --explicit-target-dependency-import-check error
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
# ld.gold prints one harmless line per sanitizer symbol; keep the output readable. Only the
# filter's own status is forgiven (grep fails when it keeps no line): with pipefail, a failed
# build still fails the recipe (`make lint` shows it).
QUIET_LINKER := { grep -v "Cannot export local symbol" || true; }

.PHONY: deps build cnpin demo test test-slow export-consumers examples bench bench-build bench-clients bench-peers bench-instructions bench-load leaks soak asan tsan apple-check openapi-check docs api-check api-baseline format lint fuzz

deps:
	@scripts/deps.sh

# Every product, strict (warnings as errors, explicit Sendable), in a build folder of its own so
# that it does not undo make test's.
build: deps
	$(SWIFT) build --build-path .build/strict $(IMPORTS) $(STRICT) $(SENDABLE)

# The shipped tool: release, with the Swift runtime and Foundation linked in (a process then
# starts in about 7 ms instead of 11; docs/decisions/cnpin.md), at .build/cnpin/release/cnpin.
cnpin: deps
	$(SWIFT) build -c release --product cnpin --static-swift-stdlib --build-path .build/cnpin $(STRICT)

# The offline demonstration: a private PKI, TLS servers on loopback, real pins, an accepted and a
# rejected connection, and a lint finding.
demo: deps
	$(SWIFT) build --product cnpin-demo $(STRICT)
	.build/debug/cnpin-demo

# Builds the tests and what they use, not the snippets or the plugin's own copy of cnpin (make
# build compiles those), then Swift Testing alone (there are no XCTest tests, so XCTest's empty
# run is skipped), quietly: each failure and issue, what the suites print, and the summary.
# A cold make test on a quiet two-core machine: 85-109 s to build (the three test modules are
# most of it: type-checking every #expect's expansion) and 23-26 s to run, 113-137 s in all
# (2026-12-06; the build alone 110-128 s in four runs that evening; where the time goes:
# docs/decisions/testing.md). It builds in a folder of its own without debug
# information (a crash's backtrace then names functions without lines: swift build
# --build-tests keeps them for lldb), and leaves to make test-slow the tests below, which
# .ci/run runs too.
TEST_BUILD := --build-path .build/test -Xswiftc -gnone
# Swift Testing starts every test at once; on two busy cores the queue of test bodies kept a
# resumed task off the shared threads for up to a minute, past the tests' liveness bounds. At
# most four tests a core run at once (the variable every swift test below inherits; a toolchain
# that no longer reads it runs them all at once, as before): docs/decisions/testing.md.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH := $(shell echo $$(( $$(nproc) * 4 )))
# Slow tests (time alone in a debug build on two cores), left to make test-slow:
#   aCrowdOfOneCookieSites…RecentlyUsedSite  27 s  3,010 one-cookie sites fill a full jar, twice
#   oneRegistrableDomainCannotCrowdOut…      1.5 s, sitesWithinTheirFairShare… 1.7 s and
#   aSiteOverItsFairShare… 2.4 s             the jar filled to its cap, each store judged against it
#   theSessionAgreesWithTheEvaluator…        16 s  every x509-limbo case through a TLS handshake, two modes
#   everyFaultOnEveryPath…                   14 s  25 server faults on three paths, each with recovery
#   spkiPinsMatchEveryKeyType…, chainsOfEveryKeyType…, everyKeyType
#                                            17 s  RSA keys up to 4,096 bits generated per key type
#   everyAlgorithmSignsAndVerifies…PyJWT     3.5 s a Python process per algorithm
SLOW_TESTS := aCrowdOfOneCookieSitesEvictsItsOwnBeforeARecentlyUsedSite|oneRegistrableDomainCannotCrowdOutAnother|sitesWithinTheirFairShareLoseCookiesLeastRecentlyUsedFirst|aSiteOverItsFairShareGivesUpCookiesFirst|theSessionAgreesWithTheEvaluatorEndToEnd|everyFaultOnEveryPathFailsCleanlyAndTheSessionRecovers|spkiPinsMatchEveryKeyTypeAndAgreeWithTheOpenSSLPipeline|chainsOfEveryKeyTypeVerifyWithOpenSSL|everyKeyType|everyAlgorithmSignsAndVerifiesAndInteroperatesWithPyJWT
test: deps
	python3 scripts/check-snippets.py
	$(SWIFT) build --product CNPinningPackageTests $(TEST_BUILD) $(IMPORTS) $(STRICT)
	$(SWIFT) test --skip-build $(TEST_BUILD) --disable-xctest --quiet --skip '$(SLOW_TESTS)'

# The slow tests make test leaves out (above).
test-slow: deps
	$(SWIFT) build --product CNPinningPackageTests $(TEST_BUILD) $(IMPORTS) $(STRICT)
	$(SWIFT) test --skip-build $(TEST_BUILD) --disable-xctest --quiet --filter '$(SLOW_TESTS)'

# Each export read by the program that consumes it, where it runs here: the OkHttp export
# compiled by Debian's kotlin against Debian's OkHttp and run on loopback (installs the two).
export-consumers: deps
	scripts/export-consumers.sh
	$(SWIFT) build --product CNPinningPackageTests $(TEST_BUILD) $(IMPORTS) $(STRICT)
	CNPINNING_EXPORT_CONSUMERS=1 $(SWIFT) test --skip-build $(TEST_BUILD) --disable-xctest --quiet --filter 'OkHttpConsumerTests|ExportConsumerTests'

# The examples, each built from the repository as the separate package a user writes; the Linux
# service is run against openssl s_server on loopback (the SwiftUI app: make apple-check).
examples: deps
	scripts/check-examples.sh

# Release-mode benchmarks (ratios measured side by side in one run), then 10,000 pinned
# handshakes with the resident-memory target.
# The benchmarks are a package of their own (Benchmarks/Package.swift), which make test never builds.
BENCH := --package-path Benchmarks
BENCH_BIN := Benchmarks/.build
bench: deps
	$(SWIFT) build $(BENCH) -c release --product CNPinningBenchmarks $(STRICT)
	$(SWIFT) build $(BENCH) -c release --product CNPinningSoak $(STRICT)
	$(BENCH_BIN)/release/CNPinningBenchmarks
	$(BENCH_BIN)/release/CNPinningSoak 10000 5

# CNPinnedSession against the tools people would use instead, on the same nginx (Debian's
# nginx-light, a test and benchmark dependency that make deps installs; skipped with a message
# when it cannot start). First in one long-lived process each, against libcurl's multi interface
# driven from C with the same options (Benchmarks/PeerC/multi-client.c): time per request, p99,
# the slowest request or batch, and context switches per request (the hand-offs between
# threads). Then each timed as a whole process in alternating rounds: the curl CLI with
# --pinnedpubkey, Foundation's URLSession pinned through URLSessionConfiguration.cnPinned, and
# Foundation's URLSession (unpinned; it gets the test root through a private
# mount namespace, which needs root). Then 10,000 requests on one reused connection, with the
# resident-memory target, and 1 GiB streamed each way (bytes(for:) over HTTP/2 and HTTP/1.1; a
# file and an httpBodyStream PUT to nginx), with the peak-memory target. ROUNDS alternating
# rounds (10 by default).
ROUNDS ?= 10
# The client is linked with the Swift runtime static, as Swift server deployments on Linux are.
PEERS_DIR := .build/bench-peers
PEERS_BUILD := $(BENCH) --build-path $(BENCH_BIN)/static -c release --static-swift-stdlib
PEERS_RUN := $(BENCH_BIN)/static/release/CNPinningPeerBenchmarks run $(PEERS_DIR) $(BENCH_BIN)/static/release/CNPinningPeerClient $(ROUNDS)
bench-peers: bench-clients
	if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null; then \
	  unshare -m sh -c 'mount --bind $(PEERS_DIR)/root.pem /etc/ssl/certs/ca-certificates.crt && exec $(PEERS_RUN)'; \
	else \
	  $(PEERS_RUN); \
	fi

# The clients bench-peers and bench-instructions run (release, static runtime), the nginx set-up
# and libcurl's client from C.
bench-clients: deps
	$(SWIFT) build $(PEERS_BUILD) --product CNPinningPeerClient $(STRICT)
	$(SWIFT) build $(PEERS_BUILD) --product CNPinningPeerBenchmarks $(STRICT)
	$(BENCH_BIN)/static/release/CNPinningPeerBenchmarks prepare $(PEERS_DIR)
	cc -O2 -Wall -Wextra -Werror -o $(PEERS_DIR)/multi-client Benchmarks/PeerC/multi-client.c $$(pkg-config --cflags --libs libcurl)

# The instruction budget (issue 68), counted by callgrind, which load does not move as it moves
# timings: instructions per keep-alive request for exchange(_:) (at most 1.3x libcurl from C
# doing the same) and data(for:) (1.6x), sequential and 8 at a time, and heap allocations per
# request (DHAT, 1.5x for both); fails when a ratio is over. 8 at a time, each count is the
# median of three runs (the interleaving moves them). About three minutes once the clients are built.
# Where they go, by library and part: scripts/instructions-per-request.py [LOW HIGH [N [KIND]]].
bench-instructions: bench-clients
	@command -v valgrind >/dev/null || { echo "bench-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
	python3 scripts/instructions-per-request.py --budget

# Every benchmark executable (debug, warnings as errors) and the libcurl-from-C client, so that
# CI sees a change that breaks them: the benchmarks are a package of their own, which make test
# never builds.
bench-build: deps
	$(SWIFT) build $(BENCH) $(STRICT) $(SENDABLE)
	mkdir -p $(PEERS_DIR)
	cc -O2 -Wall -Wextra -Werror -o $(PEERS_DIR)/multi-client Benchmarks/PeerC/multi-client.c $$(pkg-config --cflags --libs libcurl)

# 1,000 pinned requests (half rejected) under LeakSanitizer; any leak fails the target.
leaks: deps
	$(SWIFT) build $(BENCH) --build-path $(BENCH_BIN)/asan --product CNPinningSoak --sanitize=address 2>&1 | $(QUIET_LINKER)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(BENCH_BIN)/asan/debug/CNPinningSoak 1000 0

# 1,000 requests in flight for a minute over 20 pinned hosts (HTTP/2 and HTTP/1.1, some refused by
# pins), servers in a child process: throughput, latency, memory and descriptors (issue 27).
bench-load: deps
	$(SWIFT) build $(BENCH) -c release --product CNPinningLoad $(STRICT)
	$(BENCH_BIN)/release/CNPinningLoad 60 1000

# 10,000 pinned requests in release (resident-memory growth under 5 MB), then the leak check.
soak: deps leaks
	$(SWIFT) build $(BENCH) -c release --product CNPinningSoak $(STRICT)
	$(BENCH_BIN)/release/CNPinningSoak 10000 5

# The whole suite under AddressSanitizer (LeakSanitizer included; see scripts/lsan.supp).
asan: deps
	$(SWIFT) build --build-tests --build-path .build/asan --sanitize=address 2>&1 | $(QUIET_LINKER)
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(SWIFT) test --skip-build --disable-xctest --build-path .build/asan --sanitize=address

# The concurrency tests under ThreadSanitizer: the tests and suites tagged `.concurrency`
# (concurrent evaluations and requests, cancellation, enterprise races, connection reuse,
# resumption, HTTP/2 streams, proxies). Tag a new test of that kind and it runs here.
# A report goes to a file and is printed, shortened to its access stacks, after the run
# (scripts/tsan-reports.py): CI shows the end of the output.
tsan: deps
	$(SWIFT) build --build-tests --build-path .build/tsan --sanitize=thread
	rm -rf .build/tsan/reports && mkdir -p .build/tsan/reports
	filter="$$(scripts/tagged-tests.py .build/tsan concurrency)" && TSAN_OPTIONS="halt_on_error=1 log_path=$(CURDIR)/.build/tsan/reports/report" $(SWIFT) test --skip-build --disable-xctest --build-path .build/tsan --sanitize=thread --filter "$$filter" || status=$$?; scripts/tsan-reports.py .build/tsan/reports; exit $${status:-0}

# The Apple code (Security, CryptoKit and URLSession glue, the seed README's code) type-checked on
# Linux against stubs of Apple's SDK (AppleCheck/), then a self-test that deliberate mistakes fail.
apple-check: deps
	scripts/apple-check.sh --self-test

# CNPinningOpenAPI (the OpenAPI transport package beside Examples/) type-checked against
# swift-http-types' and swift-openapi-runtime's declarations recorded from 1.0.0
# (CNPinningOpenAPI/Interfaces), with a self-test that mistakes fail; and the root package's
# dependencies checked to be none. With local clones of the two packages,
# `scripts/openapi-check.sh --real RUNTIME HTTP_TYPES [DOCC_PLUGIN SYMBOLKIT]` runs swift build
# and swift test in the package against the real ones.
openapi-check: deps
	scripts/openapi-check.sh --self-test

# Formatting with the toolchain's swift-format and .swift-format. AppleCheck's stubs keep their SDKs'
# names and AppleCheck's seed copy the seed's text, so they are left as they are.
FORMAT_PATHS := Sources Tests Benchmarks/Sources Benchmarks/Package.swift Fuzz/Sources Fuzz/Package.swift Package.swift Examples/PinnedService/Sources Examples/PinnedService/Package.swift Examples/TestCNPinningApp/Sources Examples/TestCNPinningApp/Package.swift Examples/LintAtBuildTime/Sources Examples/LintAtBuildTime/Package.swift CNPinningOpenAPI/Sources CNPinningOpenAPI/Snippets CNPinningOpenAPI/Tests CNPinningOpenAPI/Package.swift CNPinningAlamofire/Sources CNPinningAlamofire/Snippets CNPinningAlamofire/Interfaces CNPinningAlamofire/Package.swift Plugins AppleCheck/DelegateConformances.swift AppleCheck/DelegateAbsences.swift
format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format $(FORMAT_PATHS)

# Also refuses Synchronization.Mutex: ThreadSanitizer cannot see its contended path on Linux, so
# `make tsan` would check nothing it guards (docs/decisions/testing.md); use Locked. And shows that
# a command failing behind QUIET_LINKER still fails its recipe.
lint:
	@if (false 2>&1 | $(QUIET_LINKER)); then echo "lint: QUIET_LINKER hides a failed build" >&2; exit 1; fi
	@(echo "Cannot export local symbol x"; echo kept) | $(QUIET_LINKER) | grep -qx kept
	$(SWIFT) format lint --strict --recursive --configuration .swift-format $(FORMAT_PATHS)
	@if grep -rnE '\bMutex *[(<]' $(FORMAT_PATHS); then \
	  echo "lint: Synchronization.Mutex above; TSan cannot see it (docs/decisions/testing.md): use Locked" >&2; exit 1; fi
	python3 scripts/check-tree.py
	python3 scripts/generate-catalogue.py --check

# API documentation: a .doccarchive per module in .build/docs, from symbol graphs with the
# toolchain's docc (warnings are errors; every public symbol needs a doc comment), for the Linux
# build and for the Apple path (make apple-check's modules, without the Linux define).
docs: deps
	scripts/docs.sh

# The public API against docs/api/: each library module's interface, of the Linux build and of the
# Apple build (apple-check's modules), synthesized by the toolchain; any change fails until
# `make api-baseline` rewrites the lists in the same commit. The check first shows that it notices
# a list with one line missing. Depends on docs so that CI builds the documentation with it.
api-check: docs
	scripts/api-surface.sh --check

api-baseline: deps
	scripts/api-surface.sh --write

# Coverage-guided fuzzing of the certificate reader, configuration loaders, JWS verifier and
# host-name handling (Fuzz/), raw and structure-aware: SECONDS per target, then the budget check.
# With RUNS=N, each target for N executions instead (10 million: hours on two cores), then each
# target's line coverage (scripts/fuzz-coverage.sh).
SECONDS ?= 60
fuzz: deps
	scripts/fuzz.sh $(if $(RUNS),long $(RUNS),$(SECONDS))
