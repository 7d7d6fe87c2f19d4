#!/usr/bin/env bash
# Runs the README's `npm start` on a fresh data folder, waits for readiness, queries seed data over
# HTTP, then sends SIGTERM and expects a clean exit 0 (the drain path).
set -euo pipefail
data="$(mktemp -d)"
port="${SMOKE_PORT:-18080}"
if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
  echo "port $port is already serving; set SMOKE_PORT to a free port"; exit 1
fi
DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn npm start >"$data/server.log" 2>&1 &
npm_pid=$!
trap 'kill "$npm_pid" 2>/dev/null || true; rm -rf "$data"' EXIT

for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  kill -0 "$npm_pid" 2>/dev/null || { cat "$data/server.log"; exit 1; }
  sleep 0.5
done
answer="$(curl -fsS -H 'content-type: application/json' \
  -d '{"query":"{ movie(id: \"1\") { title } }"}' "http://127.0.0.1:$port/graphql")"
echo "$answer"
grep -q 'The Shawshank Redemption' <<<"$answer"

server_pid="$(pgrep -n -f "^node dist/main.js")"
kill -TERM "$server_pid"
code=0
wait "$npm_pid" || code=$?
if [ "$code" -ne 0 ]; then echo "server exited with $code after SIGTERM"; cat "$data/server.log"; exit 1; fi
echo "npm start served seed data and drained on SIGTERM"
