#!/usr/bin/env bash
# Runs the official MCP conformance suite, the README's own Inspector and curl walkthrough blocks, and
# further Inspector CLI checks against the built server on a free port. The tools come from the npm
# registry at pinned versions (a scratch folder, or npx as the README says), so the project's own
# dependencies stay lean. Only the server this script started is stopped, by its pid.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
CONFORMANCE_VERSION=0.1.13   # 0.1.16 crashes on Node 20 (fs.globSync)
INSPECTOR_VERSION=2.12.0     # must match the README's commands (checked below)

tools="$(mktemp -d)"
data="$(mktemp -d)"
port="$(free_port)"
server_pid=""
cleanup() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi; rm -rf "$tools" "$data"; }
trap cleanup EXIT

grep -q "@modelcontextprotocol/inspector@$INSPECTOR_VERSION " README.md ||
  { echo "README.md does not pin @modelcontextprotocol/inspector@$INSPECTOR_VERSION"; exit 1; }

npm install --no-audit --no-fund --silent --prefix "$tools" \
  "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null 2>&1

# The conformance suite plays ~30 anonymous clients from one address, each keeping its listening stream
# open (a session with an open stream never gives way), so this one address may hold more sessions than
# the default MCP_MAX_SESSIONS_PER_ADDRESS allows.
DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn MCP_MAX_SESSIONS_PER_ADDRESS=100 node dist/main.js \
  >"$data/server.log" 2>&1 &
server_pid=$!
wait_ready "http://127.0.0.1:$port/readyz" "$server_pid" "$data/server.log"
url="http://127.0.0.1:$port/mcp"

echo "-- conformance $CONFORMANCE_VERSION"
(cd "$tools" && ./node_modules/.bin/conformance server --url "$url" \
  --expected-failures "$OLDPWD/.ci/conformance-expected-failures.yml") >"$tools/conformance.txt" 2>&1 || true
node .ci/conformance-summary.mjs .ci/conformance-expected-failures.yml <"$tools/conformance.txt" ||
  { cat "$tools/conformance.txt"; exit 1; }

# The README's blocks, as written (only the address substituted), in the README's order. The Inspector
# keeps its catalogue and config in a scratch HOME; npx keeps using the usual npm cache.
run_readme_block() {
  local name="$1" out="$tools/readme-$1.txt"
  echo "-- README block '$name'"
  readme_block "$name" "$port" >"$tools/readme-$name.sh"
  [ -s "$tools/readme-$name.sh" ] || { echo "README.md has no block marked ci:run $name"; exit 1; }
  (
    export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
    export PORT="$port" HOME="$tools/home" XDG_CONFIG_HOME="$tools/config"
    # shellcheck disable=SC1090
    set -euo pipefail; TOKEN="${TOKEN:-}"; source "$tools/readme-$name.sh"; echo "TOKEN=$TOKEN" >"$tools/token.env"
  ) >"$out" 2>"$tools/readme-$name.err" || { cat "$out" "$tools/readme-$name.err"; exit 1; }
}
expect_in() { grep -q -- "$2" "$tools/readme-$1.txt" || { echo "README block '$1' did not print $2:"; cat "$tools/readme-$1.txt"; exit 1; }; }

run_readme_block curl
expect_in curl '"title":"Se7en"'
expect_in curl '"reviewCount":8'
expect_in curl '"status":"WANT_TO_WATCH","content":{"title":"Top Gun: Maverick"}'
! grep -q '"errors"' "$tools/readme-curl.txt" || { echo "README curl block answered errors:"; cat "$tools/readme-curl.txt"; exit 1; }
source "$tools/token.env"; export TOKEN

run_readme_block inspector
expect_in inspector '"name": "recommendMoviesForMood"'
expect_in inspector '"isError": false'
expect_in inspector 'Se7en'

run_readme_block mcp-curl
grep -Eq '^session: [0-9a-f-]{36}$' "$tools/readme-mcp-curl.txt" || { echo "no session id captured:"; cat "$tools/readme-mcp-curl.txt"; exit 1; }
expect_in mcp-curl '"structuredContent":{"data":{"id":"[0-9]*","status":"WANT_TO_WATCH","content":{[^}]*"title":"Avengers: Endgame"'
expect_in mcp-curl '"isError":false'
echo "README curl, Inspector and MCP curl blocks ran as written"

echo "-- MCP Inspector CLI $INSPECTOR_VERSION: strict listing and tool errors"
inspect() {
  HOME="$tools/home" XDG_CONFIG_HOME="$tools/config" "$tools/node_modules/.bin/mcp-inspector" --cli "$url" \
    --transport http --header "Authorization: Bearer $TOKEN" "$@"
}
listed="$(inspect --method tools/list --strict 2>"$tools/portability.txt")"
if grep -q 'Warning' "$tools/portability.txt"; then cat "$tools/portability.txt"; exit 1; fi
for tool in recommendMoviesForMood summarizeMovieReviews addToWatchlist searchMovies getMovie myWatchlist \
  setWatchStatus removeFromWatchlist createReview; do
  grep -q "\"name\": \"$tool\"" <<<"$listed" || { echo "Inspector did not list $tool"; exit 1; }
done
echo "Inspector listed all 9 tools; its --strict schema portability check found nothing"
added="$(inspect --method tools/call --tool-name addToWatchlist --tool-arg 'subject={"movieId":"7"}')"
grep -q '"title": "Die Hard"' <<<"$added" || { echo "$added"; exit 1; }
# The CLI reports an isError result as its own error object and a non-zero exit.
again="$(inspect --method tools/call --tool-name addToWatchlist --tool-arg 'subject={"movieId":"7"}' 2>&1 || true)"
grep -q 'tool_is_error' <<<"$again" || { echo "$again"; exit 1; }
echo "Inspector called tools with a token: success, and the duplicate as a BAD_REQUEST tool error"
