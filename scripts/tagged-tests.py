#!/usr/bin/env python3
"""Which tests carry a Swift Testing tag (for make tsan): swift test selects by name only.

Prints a --filter pattern selecting the tests and suites that carry a Swift Testing tag.

This toolchain's `swift test --filter` matches test IDs only (no `tag:` prefix yet), so the tag
is read from the test binary's own listing: its event stream names each test's and suite's tags.
Usage: tagged-tests.py BUILD_PATH TAG. Fails, printing nothing, when no test carries the tag, so
that a broken listing can never turn into "run nothing" or "run everything".
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: tagged-tests.py BUILD_PATH TAG", file=sys.stderr)
        return 2
    build_path, tag = sys.argv[1], sys.argv[2]
    bin_path = subprocess.run(
        ["swift", "build", "--build-path", build_path, "--show-bin-path"],
        check=True, capture_output=True, text=True).stdout.strip()
    binary = os.path.join(bin_path, "CNPinningPackageTests.xctest")
    with tempfile.TemporaryDirectory() as directory:
        stream = os.path.join(directory, "events.jsonl")
        subprocess.run(
            [binary, "--testing-library", "swift-testing", "--list-tests",
             "--event-stream-output-path", stream, "--event-stream-version", "0"],
            check=True, stdout=subprocess.DEVNULL)
        with open(stream, encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines if line.strip()]
    patterns = []
    for record in records:
        payload = record.get("payload", {})
        if record.get("kind") != "test" or "." + tag not in payload.get("_tags", []):
            continue
        identifier = payload["id"]
        if payload.get("kind") == "function":
            identifier = identifier.rsplit("/", 1)[0]  # without its source location
        patterns.append(re.escape(identifier))
    if not patterns:
        print(f"tagged-tests.py: no test or suite carries the tag .{tag}", file=sys.stderr)
        return 1
    print("|".join(sorted(patterns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
