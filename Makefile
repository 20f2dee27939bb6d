# CNPinning — build, test and benchmark. Every target installs missing dependencies first.
SWIFT ?= swift
STRICT := -Xswiftc -warnings-as-errors

.PHONY: deps build test bench clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build $(STRICT)

test: deps
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release --product CNPinningBenchmarks $(STRICT)
	.build/release/CNPinningBenchmarks

clean:
	rm -rf .build
