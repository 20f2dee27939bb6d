# CNPinning — build, test and benchmark. Every target installs missing dependencies first.
SWIFT ?= swift
STRICT := -Xswiftc -warnings-as-errors
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
# ld.gold prints one harmless line per sanitizer symbol; keep the output readable.
QUIET_LINKER := grep -v "Cannot export local symbol" || true

.PHONY: deps build demo test bench leaks soak asan tsan fuzz clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build $(STRICT)

# The offline demonstration: a private PKI, TLS servers on loopback, real pins, an accepted and a
# rejected connection, and a lint finding.
demo: deps
	$(SWIFT) build --product cnpin $(STRICT)
	.build/debug/cnpin demo

test: deps
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build

# Release-mode benchmarks (ratios measured side by side in one run), then 10,000 pinned
# handshakes with the resident-memory target.
bench: deps
	$(SWIFT) build -c release --product CNPinningBenchmarks $(STRICT)
	$(SWIFT) build -c release --product CNPinningSoak $(STRICT)
	.build/release/CNPinningBenchmarks
	.build/release/CNPinningSoak 10000 5

# 1,000 pinned requests (half rejected) under LeakSanitizer; any leak fails the target.
leaks: deps
	$(SWIFT) build --build-path .build/asan --product CNPinningSoak --sanitize=address 2>&1 | $(QUIET_LINKER)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp .build/asan/debug/CNPinningSoak 1000 0

# 10,000 pinned requests in release (resident-memory growth under 5 MB), then the leak check.
soak: deps leaks
	$(SWIFT) build -c release --product CNPinningSoak $(STRICT)
	.build/release/CNPinningSoak 10000 5

# The whole suite under AddressSanitizer (LeakSanitizer included; see scripts/lsan.supp).
asan: deps
	$(SWIFT) build --build-tests --build-path .build/asan --sanitize=address 2>&1 | $(QUIET_LINKER)
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(SWIFT) test --skip-build --build-path .build/asan --sanitize=address

# The concurrency tests under ThreadSanitizer: concurrent evaluations, requests, cancellations and
# enterprise apply/refresh/signOut races.
TSAN_TESTS := concurrent|Concurrent|racing|Racing|cancelling|EnterpriseSession|changingPins
tsan: deps
	$(SWIFT) build --build-tests --build-path .build/tsan --sanitize=thread
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --build-path .build/tsan --sanitize=thread --filter "$(TSAN_TESTS)"

# Coverage-guided fuzzing of the certificate reader, configuration loaders, JWS verifier and
# host-name handling (Fuzz/), SECONDS per target.
SECONDS ?= 60
fuzz: deps
	scripts/fuzz.sh $(SECONDS)

clean:
	rm -rf .build Fuzz/.build
