#!/usr/bin/env bash
# Real MCP clients that nobody here wrote, against the built server: the two MCP SDK clients, mcp-remote
# through stdio (signing in through the built-in authorization server's page in headless Chromium), Vercel
# AI SDK's MCP client and LangChain's adapters. Each connects, lists, converts every tool's schema its
# framework's own way, makes the calls of a signed-in user and surfaces two tool errors (the text a model
# reads must start with the classification); the drivers are .ci/clients/*.mjs, and the step prints
# their table and fails on any miss.
#
# Runs alone (`bash .ci/real-clients.sh [DRIVER...]`, after `npm ci`): it builds dist/ if stale and starts its own
# server on a free port, with MCP_AUTH=required so that mcp-remote must sign in (a server that lets
# anonymous callers in never sends it to OAuth) and no OAUTH_ISSUER (the embedded default). The clients
# come from the npm registry at the pinned versions below, into a cache folder outside the project
# (~/.cache/moviedb-mcp-ci/real-clients, reinstalled only when a pin changes), never into package.json.
# Only the processes this script started are stopped, by pid.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh

PINNED=(
  @modelcontextprotocol/sdk@1.32.2
  @modelcontextprotocol/client@2.4.0
  mcp-remote@0.15.1
  @ai-sdk/mcp@1.0.102 # the 1.0 line runs on Node 20 (2.0 needs Node 22)
  @ai-sdk/provider-utils@4.0.65 # the one @ai-sdk/mcp 1.0.102 depends on: its schema conversion
  zod@4.6.7 # a peer of @ai-sdk/mcp; the project's own version
  @langchain/mcp-adapters@1.1.4
  @langchain/core@1.4.0 # peers of the adapters
  @langchain/langgraph@1.7.3
  playwright-core@1.65.1 # drives /usr/bin/chromium for the sign-in; the project's own version
)
DRIVERS=(
  "sdk-v1.mjs"
  "client-v2.mjs 2025-11-25"
  "client-v2.mjs 2026-07-28"
  "mcp-remote.mjs"
  "ai-sdk.mjs"
  "langchain.mjs"
)
# `bash .ci/real-clients.sh langchain mcp-remote` runs only the drivers whose file names start so.
if [ "$#" -gt 0 ]; then
  chosen=()
  for driver in "${DRIVERS[@]}"; do
    for wanted in "$@"; do case "$driver" in "$wanted"*) chosen+=("$driver") ;; esac; done
  done
  [ "${#chosen[@]}" -gt 0 ] || { echo "no driver starts with: $*"; exit 1; }
  DRIVERS=("${chosen[@]}")
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/moviedb-mcp-ci/real-clients"
mkdir -p "$cache"
data="$(mktemp -d)"
run=""
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$data"
  if [ -n "$run" ]; then rm -rf "$run"; fi
}
trap cleanup EXIT

ensure_chromium

echo "-- the clients, pinned (cache: $cache)"
wanted="$(node -e '
  const dependencies = {};
  for (const spec of process.argv.slice(1)) {
    const at = spec.lastIndexOf("@");
    dependencies[spec.slice(0, at)] = spec.slice(at + 1);
  }
  console.log(JSON.stringify({ private: true, type: "module", dependencies }, null, 2));
' "${PINNED[@]}")"
# One install at a time; a run holds the lock shared, so no other run reinstalls under it.
exec 9>"$cache/.lock"
flock -x 9
if [ "$(cat "$cache/package.json" 2>/dev/null)" != "$wanted" ] || [ ! -d "$cache/node_modules" ]; then
  printf '%s\n' "$wanted" >"$cache/package.json"
  rm -rf "$cache/node_modules" "$cache/package-lock.json"
  started=$SECONDS
  npm install --no-audit --no-fund --prefix "$cache" >"$cache/install.log" 2>&1 ||
    { cat "$cache/install.log"; exit 1; }
  echo "installed in $((SECONDS - started)) s"
fi
flock -s 9
printf '%s\n' "${PINNED[@]}"

node scripts/build-if-stale.mjs
port="$(free_port)"
DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn MCP_AUTH=required node dist/main.js >"$data/server.log" 2>&1 &
server_pid=$!
wait_ready "http://127.0.0.1:$port/readyz" "$server_pid" "$data/server.log"

# The drivers run from a folder inside the cache, so their imports resolve to the pinned clients.
run="$(mktemp -d "$cache/run.XXXXXX")"
cp .ci/clients/*.mjs "$run/"
echo "-- ${#DRIVERS[@]} clients against http://127.0.0.1:$port (MCP_AUTH=required)"
# One after another: run together on two busy cores, a client held off the CPU past the server's
# keep-alive (5 s) between two requests reused a socket the server had just closed ("other side closed").
for i in "${!DRIVERS[@]}"; do
  read -r file args <<<"${DRIVERS[$i]}"
  started=$SECONDS
  # shellcheck disable=SC2086
  timeout 180 node "$run/$file" "http://127.0.0.1:$port" $args >"$run/out.$i" 2>"$run/err.$i" || true
  echo "${DRIVERS[$i]}: $((SECONDS - started)) s"
done
for i in "${!DRIVERS[@]}"; do
  grep '^RESULT ' "$run/out.$i" || { echo "${DRIVERS[$i]} printed no result:" >&2; cat "$run/out.$i" "$run/err.$i" >&2; }
done >"$run/results.txt"
node "$run/table.mjs" "${#DRIVERS[@]}" <"$run/results.txt"
