# Sourced by scripts/profile-peers.sh and scripts/cnpin-start.sh, which set `release` and
# `directory`: starts the peer benchmark's two nginx servers (CNPinningPeerBenchmarks serve) for
# at most an hour in a new folder `work`, removes both when the script exits, and sets
# `keep_alive_port` (keep-alive, HTTP/2) and `closing_port` (keep-alive off, HTTP/1.1).
work=$(mktemp -d)
"$release/CNPinningPeerBenchmarks" serve "$directory" 3600 >"$work/serve.log" 2>&1 &
serve=$!
# The servers are nginx processes the serve command started (children, stopped with SIGKILL).
stop() {
  local status=$?
  pkill -KILL -P "$serve" 2>/dev/null || true
  kill "$serve" 2>/dev/null || true
  wait "$serve" 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
trap stop EXIT
for _ in $(seq 100); do grep -q "^nginx:" "$work/serve.log" && break; sleep 0.1; done
grep -q "^nginx:" "$work/serve.log" || { cat "$work/serve.log"; exit 2; }
keep_alive_port=$(sed -E 's/.*HTTP\/2 on ([0-9]+).*/\1/' "$work/serve.log")
closing_port=$(sed -E 's/.*keep-alive off on ([0-9]+).*/\1/' "$work/serve.log")
