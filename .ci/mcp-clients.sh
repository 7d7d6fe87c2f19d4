#!/usr/bin/env bash
# Runs the official MCP conformance suite, every block the README and docs/ mark `ci:run` (the quick
# start, the Inspector, the GraphQL and MCP curl walkthroughs), and further Inspector CLI checks against
# the built server on a free port; then starts `npm run cluster` (two replicas behind nginx, on
# TEST_DATABASE_URL and TEST_REDIS_URL) and runs the conformance suites and the curl blocks again
# through its load balancer. The tools come from the
# npm registry at pinned versions (a scratch folder, or npx as the README says), so the project's own
# dependencies stay lean. Only the processes this script started are stopped, by pid (the cluster's
# replicas and nginx by the cluster script, which CI stops by its pid).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
CONFORMANCE_VERSION=0.1.13   # 0.1.16 crashes on Node 20 (fs.globSync)
CONFORMANCE_2026_VERSION=0.2.0-alpha.12   # the line with --spec-version 2026-07-28; imports fs.globSync too
INSPECTOR_VERSION=2.12.0     # must match the README's commands (checked below)

tools="$(mktemp -d)"
data="$(mktemp -d)"
port="$(free_port)"
server_pid=""
cluster_npm=""
cluster_schema="ci_cluster_$$_$RANDOM"
cluster_prefix="moviedb-ci-cluster-$$-$RANDOM"
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  # setsid made npm the leader of a group of its own (npm, sh, the cluster script; the replicas and
  # nginx run in groups of their own and are stopped by the script when it gets this SIGTERM).
  if [ -n "$cluster_npm" ]; then kill -TERM -- "-$cluster_npm" 2>/dev/null || true; wait "$cluster_npm" 2>/dev/null || true; fi
  psql -q "${TEST_DATABASE_URL:?}" -c "drop schema if exists \"$cluster_schema\" cascade" >/dev/null 2>&1 || true
  redis-cli -u "${TEST_REDIS_URL:?}" --scan --pattern "$cluster_prefix*" | xargs -r redis-cli -u "$TEST_REDIS_URL" del >/dev/null || true
  rm -rf "$tools" "$data"
}
trap cleanup EXIT

grep -q "@modelcontextprotocol/inspector@$INSPECTOR_VERSION " README.md ||
  { echo "README.md does not pin @modelcontextprotocol/inspector@$INSPECTOR_VERSION"; exit 1; }

npm install --no-audit --no-fund --silent --prefix "$tools" \
  "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null 2>&1
# The 2026 suite has the same package name: it gets a folder of its own.
npm install --no-audit --no-fund --silent --prefix "$tools/c2026" \
  "@modelcontextprotocol/conformance@$CONFORMANCE_2026_VERSION" >/dev/null 2>&1

# The conformance suites play ~30 anonymous 2025 clients from one address, each keeping its listening stream
# open (a session with an open stream never gives way), so this one address may hold more sessions than
# the default MCP_MAX_SESSIONS_PER_ADDRESS allows. Within a minute they also run more anonymous operations
# from that address than RATE_LIMIT_ANON_OPERATIONS (120) allows, which would refuse the quick start's login
# after them (RATE_LIMITED): the quota is raised here, the other limits stay as shipped.
DATA_DIR="$data" PORT="$port" LOG_LEVEL=warn MCP_MAX_SESSIONS_PER_ADDRESS=200 RATE_LIMIT_ANON_OPERATIONS=100000 \
  node dist/main.js \
  >"$data/server.log" 2>&1 &
server_pid=$!
wait_ready "http://127.0.0.1:$port/readyz" "$server_pid" "$data/server.log"
url="http://127.0.0.1:$port/mcp"

# It imports fs.globSync (Node 22) but does not call it to test a server: a resolve hook gives it a
# node:fs with a globSync that throws, so Node 20 can load it.
cat >"$tools/fs-shim.mjs" <<'SHIM'
import fs from 'node:fs';
export * from 'node:fs';
export default fs;
export function globSync() { throw new Error('fs.globSync is not available on Node 20'); }
SHIM
cat >"$tools/fs-hooks.mjs" <<'HOOKS'
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
    return { url: new URL('./fs-shim.mjs', import.meta.url).href, shortCircuit: true };
  return next(specifier, context);
}
HOOKS
cat >"$tools/fs-hook.mjs" <<'HOOK'
import { register } from 'node:module';
register('./fs-hooks.mjs', import.meta.url);
HOOK

# Both suites against the /mcp endpoint at $1 ($2 names it in the output), each with its expected failures.
conformance() {
  local url="$1" label="$2" out="$tools/out2026-$RANDOM"
  echo "-- conformance $CONFORMANCE_VERSION ($label)"
  (cd "$tools" && ./node_modules/.bin/conformance server --url "$url" \
    --expected-failures "$OLDPWD/.ci/conformance-expected-failures.yml") >"$tools/conformance.txt" 2>&1 || true
  node .ci/conformance-summary.mjs .ci/conformance-expected-failures.yml <"$tools/conformance.txt" ||
    { cat "$tools/conformance.txt"; exit 1; }

  echo "-- conformance $CONFORMANCE_2026_VERSION --suite all --spec-version 2026-07-28 ($label)"
  (cd "$tools/c2026" && node --import "$tools/fs-hook.mjs" node_modules/@modelcontextprotocol/conformance/dist/index.js \
    server --url "$url" --suite all --spec-version 2026-07-28 -o "$out" \
    --expected-failures "$OLDPWD/.ci/conformance-2026-expected-failures.yml") | grep -E '^(✓|✗)|Total|Baseline' |
    sed -E 's/([0-9]+) passed, ([0-9]+) failed/checks ok \1, not ok \2/'
  # The expected failures are whole scenarios; check by check, every failure must be a missing fixture
  # (the suite's own tools, prompts, resources or completions), never a check our tools could pass.
  node -e '
    const fs = require("fs"), path = require("path");
    const fixture = /Unknown tool: (test_|json_schema)|Unknown prompt: test_|Resource not found: test:\/\/|Not testable|Method not found|not found\. Available tools|InputRequiredResult|Prerequisite failed/;
    let ok = 0, fixtures = 0, other = [];
    for (const dir of fs.readdirSync(process.argv[1])) {
      for (const check of JSON.parse(fs.readFileSync(path.join(process.argv[1], dir, "checks.json"), "utf8"))) {
        if (check.status === "SUCCESS") ok += 1;
        else if (check.status === "FAILURE") fixture.test(check.errorMessage ?? "") ? (fixtures += 1) : other.push(`${dir}: ${check.id}: ${check.errorMessage}`);
      }
    }
    console.log(`2026-07-28 checks: ${ok} ok, ${fixtures} need the suite fixtures, ${other.length} other`);
    if (other.length > 0) { console.log(other.join("\n")); process.exit(1); }
  ' "$out"
}

conformance "$url" "one server"

# The marked blocks of the README and docs/, as written (only the address substituted), in reading
# order. The Inspector keeps its catalogue and config in a scratch HOME; npx keeps using the usual npm
# cache. $2: the port to send the block to (default: the single server's).
run_readme_block() {
  local name="$1" at="${2:-$port}" out="$tools/readme-$1.txt"
  echo "-- block '$name' (port $at)"
  doc_block "$name" "$at" >"$tools/readme-$name.sh" || exit 1
  [ -s "$tools/readme-$name.sh" ] || { echo "no page has a block marked ci:run $name"; exit 1; }
  (
    export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
    export PORT="$at" HOME="$tools/home" XDG_CONFIG_HOME="$tools/config"
    # shellcheck disable=SC1090
    set -euo pipefail; TOKEN="${TOKEN:-}"; source "$tools/readme-$name.sh"; echo "TOKEN=$TOKEN" >"$tools/token.env"
  ) >"$out" 2>"$tools/readme-$name.err" || { cat "$out" "$tools/readme-$name.err"; exit 1; }
}
expect_in() { grep -q -- "$2" "$tools/readme-$1.txt" || { echo "block '$1' did not print $2:"; cat "$tools/readme-$1.txt"; exit 1; }; }
no_errors_in() { ! grep -q '"errors":\[{' "$tools/readme-$1.txt" || { echo "block '$1' answered errors:"; cat "$tools/readme-$1.txt"; exit 1; }; }

# The blocks this script knows what to expect of; any other marked block runs too (after these) and
# must succeed, so a page cannot mark a block runnable that CI skips.
KNOWN_BLOCKS="quickstart inspector graphql-curl mcp-curl mcp-2026-curl"
echo "-- blocks marked ci:run"
doc_block_names

run_readme_block quickstart
expect_in quickstart '"me":{"username":"user"}'
expect_in quickstart '"title":"Se7en"'
no_errors_in quickstart
source "$tools/token.env"; export TOKEN

run_readme_block inspector
expect_in inspector '"name": "recommendMoviesForMood"'
expect_in inspector '"isError": false'
expect_in inspector 'Se7en'

run_readme_block graphql-curl
expect_in graphql-curl '"title":"Se7en"'
expect_in graphql-curl '"reviewCount":8'
expect_in graphql-curl '"status":"WANT_TO_WATCH","content":{"title":"Top Gun: Maverick"}'
no_errors_in graphql-curl
source "$tools/token.env"; export TOKEN

run_readme_block mcp-curl
grep -Eq '^session: [0-9a-f-]{36}$' "$tools/readme-mcp-curl.txt" || { echo "no session id captured:"; cat "$tools/readme-mcp-curl.txt"; exit 1; }
expect_in mcp-curl '"structuredContent":{"data":{"id":"[0-9]*","status":"WANT_TO_WATCH","content":{[^}]*"title":"Avengers: Endgame"'
expect_in mcp-curl '"isError":false'

run_readme_block mcp-2026-curl
expect_in mcp-2026-curl '"title":"Groundhog Day"'
expect_in mcp-2026-curl '"isError":false'

# Blocks marked ci:run that this script has no expectations for: each must run to a zero exit.
for name in $(doc_block_names | cut -d' ' -f2); do
  case " $KNOWN_BLOCKS " in *" $name "*) ;; *) run_readme_block "$name" ;; esac
done
echo "every block marked ci:run in README.md and docs/ ran as written"

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

echo "-- npm run cluster: two replicas behind nginx; the suites and the curl walkthroughs through it"
lb_port="$(free_port)"
# A schema and key prefix of its own (dropped on exit); sessions and anonymous quota as above.
DATABASE_URL="$TEST_DATABASE_URL" DATABASE_SCHEMA="$cluster_schema" REDIS_URL="$TEST_REDIS_URL" \
  REDIS_KEY_PREFIX="$cluster_prefix" DATA_DIR="$data/cluster" LOG_LEVEL=warn MCP_MAX_SESSIONS_PER_ADDRESS=200 \
  RATE_LIMIT_ANON_OPERATIONS=100000 \
  setsid npm run cluster -- --port "$lb_port" >"$data/cluster.log" 2>&1 &
cluster_npm=$!
wait_ready "http://127.0.0.1:$lb_port/readyz" "$cluster_npm" "$data/cluster.log"
# The load balancer can answer before the script has printed its banner (the pid to stop it by).
for _ in $(seq 1 60); do grep -q 'stops everything' "$data/cluster.log" && break; sleep 0.5; done
sed -n '/^moviedb-mcp cluster/,/stops everything/p' "$data/cluster.log"
cluster_pid="$(sed -n 's/.*kill -TERM \([0-9][0-9]*\)).*/\1/p' "$data/cluster.log")"
[ -n "$cluster_pid" ] || { echo "npm run cluster printed no pid:"; cat "$data/cluster.log"; exit 1; }

conformance "http://127.0.0.1:$lb_port/mcp" "through the load balancer"
TOKEN=""
run_readme_block quickstart "$lb_port"
expect_in quickstart '"me":{"username":"user"}'
run_readme_block graphql-curl "$lb_port"
expect_in graphql-curl '"status":"WANT_TO_WATCH","content":{"title":"Top Gun: Maverick"}'
source "$tools/token.env"; export TOKEN
run_readme_block mcp-curl "$lb_port"
expect_in mcp-curl '"isError":false'
run_readme_block mcp-2026-curl "$lb_port"
expect_in mcp-2026-curl '"isError":false'
echo "the quick start, GraphQL curl and MCP curl blocks ran as written through the load balancer"

replicas="$(sed -n 's/^  app-[0-9].*pid \([0-9][0-9]*\)$/\1/p' "$data/cluster.log")"
kill -TERM "$cluster_pid"
code=0
wait "$cluster_npm" || code=$?
cluster_npm=""
[ "$code" -eq 0 ] || { echo "npm run cluster exited with $code after SIGTERM:"; cat "$data/cluster.log"; exit 1; }
for pid in $replicas; do
  if kill -0 "$pid" 2>/dev/null; then echo "replica pid $pid still runs after the cluster stopped"; exit 1; fi
done
echo "npm run cluster stopped its replicas and nginx on SIGTERM (exit 0)"
