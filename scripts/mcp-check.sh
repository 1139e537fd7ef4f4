#!/usr/bin/env bash
# make mcp-check: starts `hiringsignal serve` on a free port over the private stores, makes a
# key, and runs an independent MCP client (the TypeScript SDK's, from the npm registry; node and
# npm from Debian's packages when missing) against its /mcp: tools/list and tools/call.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/hiringsignal}
command -v npm >/dev/null 2>&1 || ./scripts/deps.sh nodejs npm
# npm ci empties node_modules and installs it again; it runs only when the lock file changed
# since the last install here (node_modules/.lock-sha256 keeps the lock's hash).
lock=$(sha256sum scripts/mcp-check/package-lock.json | cut -d' ' -f1)
if [ "$(cat scripts/mcp-check/node_modules/.lock-sha256 2>/dev/null)" != "$lock" ]; then
  (cd scripts/mcp-check && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock" >scripts/mcp-check/node_modules/.lock-sha256
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run=$(mktemp -d)
log="$run/serve.log"
"$BIN" serve --listen "127.0.0.1:$port" --metering-dir "$run/metering" \
  --webhook-secret-keys "$(head -c 32 /dev/urandom | base64)" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$run"' EXIT
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then break; fi
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; echo "mcp-check: serve stopped" >&2; exit 1; }
  sleep 0.5
done
key=$("$BIN" accounts create --plan growth --email "mcp-check-$(date +%s)-$$@example.com" | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
MCP_URL="http://127.0.0.1:$port/mcp" MCP_KEY="$key" node scripts/mcp-check/check.mjs
