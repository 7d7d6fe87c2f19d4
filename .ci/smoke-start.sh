#!/usr/bin/env bash
# Runs the README quick start's `npm start` on a fresh data folder and a free port, waits for readiness,
# queries seed data over HTTP, checks the CLI's --help and check, then sends SIGTERM to the server it
# started (by pid) and expects a clean exit 0 (the drain path) through npm.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
data="$(mktemp -d)"
port="$(free_port)"
npm_pid=""
cleanup() {
  # Only the process group this script started (setsid made npm its leader).
  if [ -n "$npm_pid" ]; then kill -TERM -- "-$npm_pid" 2>/dev/null || true; fi
  rm -rf "$data"
}
trap cleanup EXIT

# The command this script proves is the one the README tells a newcomer to run.
grep -q '^npm ci && npm start ' README.md || { echo "README.md's quick start no longer says npm ci && npm start"; exit 1; }

echo "-- CLI: --help, --version, check"
node dist/main.js --help | head -n 1
node dist/main.js --version
node dist/main.js check | sed -n '1p;/^Operations/p;/total/p'

echo "-- npm start on port $port"
DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn setsid npm start >"$data/server.log" 2>&1 &
npm_pid=$!
wait_ready "http://127.0.0.1:$port/readyz" "$npm_pid" "$data/server.log"
answer="$(curl -fsS -H 'content-type: application/json' \
  -d '{"query":"{ movie(id: \"1\") { title } }"}' "http://127.0.0.1:$port/graphql")"
echo "$answer"
grep -q 'The Shawshank Redemption' <<<"$answer"

server_pid="$(leaf_pid "$npm_pid")"
kill -TERM "$server_pid"
code=0
wait "$npm_pid" || code=$?
npm_pid=""
if [ "$code" -ne 0 ]; then echo "server exited with $code after SIGTERM"; cat "$data/server.log"; exit 1; fi
echo "npm start served seed data and drained on SIGTERM (exit 0)"
