#!/usr/bin/env bash
# Whether the examples build as the separate packages users write and the service runs: the package build never compiles them.
# Builds the examples in Examples/ from the repository, each as the separate package a user would
# write, and runs the Linux service against a real TLS server on loopback (`make examples`):
#   - PinnedService, depending on this repository by path, calls `openssl s_server` on 127.0.0.1
#     with a private PKI made here by the openssl tool: the genuine pins succeed (exit 0) and pins
#     naming another root are refused with the pin-mismatch reason (exit 1).
#   - LintAtBuildTime, whose target applies the CNPinLint build-tool plugin to its pins.json,
#     builds; a copy whose pins.json has an unknown link type fails to build, with the linter's
#     error naming the element.
# The SwiftUI example (Examples/TestCNPinningApp) is type-checked by `make apple-check`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
service=$root/Examples/PinnedService
swift build --package-path "$service" 2>&1 | { grep -E "error|warning: |Compiling PinnedService|Build complete" || true; }
binary=$(swift build --package-path "$service" --show-bin-path)/PinnedService

work=$(mktemp -d)
server=
# Keeps the script's own status: the server's, once it is killed, would be 143.
cleanup() {
  local status=$?
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
cd "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=Example Service Root" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -keyout root.key -out root.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=upstream.local" -keyout leaf.key -out leaf.csr \
  2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >leaf.ext
openssl x509 -req -in leaf.csr -CA root.pem -CAkey root.key -CAcreateserial -days 1 -extfile leaf.ext -out leaf.pem 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
openssl s_server -quiet -accept "127.0.0.1:$port" -cert leaf.pem -key leaf.key -www >server.log 2>&1 &
server=$!
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

pins() {
  printf '{"PinnedDomains": {"127.0.0.1": {"includesSubdomains": false, "chainSet": [[%s, %s]]}}}\n' \
    "{\"type\": \"exact\", \"value\": \"$1\"}" '{"type": "exact", "value": "upstream.local"}'
}
pins "Example Service Root" >genuine.json
pins "Another Root" >other.json
url="https://127.0.0.1:$port/"

"$binary" genuine.json "$url" --cafile root.pem --count 2 --interval 0.1 2>genuine.log || {
  cat genuine.log
  echo "examples: PinnedService failed with the genuine pins" >&2
  exit 1
}
grep -q "$url: 200" genuine.log || { cat genuine.log; echo "examples: no 200 from the upstream" >&2; exit 1; }
status=0
"$binary" other.json "$url" --cafile root.pem --count 1 2>other.log || status=$?
[ "$status" = 1 ] && grep -q "refused: Pin mismatch for 127.0.0.1" other.log || {
  cat other.log
  echo "examples: PinnedService did not refuse pins naming another root (exit $status)" >&2
  exit 1
}

linted=$root/Examples/LintAtBuildTime
touch "$linted/Sources/Pins/pins.json"  # so that an up-to-date build lints it again
swift build --package-path "$linted" >"$work/lint-good.log" 2>&1 || {
  cat "$work/lint-good.log"
  echo "examples: LintAtBuildTime did not build with a valid pins.json" >&2
  exit 1
}
grep -q "Linting the pins in pins.json" "$work/lint-good.log" || {
  cat "$work/lint-good.log"
  echo "examples: the CNPinLint plugin did not run" >&2
  exit 1
}
broken=$work/LintAtBuildTime
cp -r "$linted" "$broken"
rm -rf "$broken/.build"
sed -i "s|path: \"../..\"|path: \"$root\"|" "$broken/Package.swift"
sed -i '0,/"type": "exact"/s//"type": "exakt"/' "$broken/Sources/Pins/pins.json"
if swift build --package-path "$broken" >"$work/lint-bad.log" 2>&1; then
  cat "$work/lint-bad.log"
  echo "examples: a pins.json with an unknown link type built" >&2
  exit 1
fi
grep -q 'error: PinnedDomains\["api.example.com"\].chainSet\[0\]\[1\].type: unknown link type "exakt"' "$work/lint-bad.log" || {
  cat "$work/lint-bad.log"
  echo "examples: the failed build does not show the linter's error" >&2
  exit 1
}
echo "examples: PinnedService built from the repository; genuine pins: 2 calls, 200; another root's pins: refused"
echo "examples: CNPinLint ran as LintAtBuildTime built; a pins.json with an unknown link type failed the build, naming the element"
