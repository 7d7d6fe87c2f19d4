#!/usr/bin/env bash
# Builds the image from ./Dockerfile and runs docker-compose.yml as written under a real Docker engine:
# both replicas, the config-check gate, nginx, PostgreSQL and Redis, with the third-party images replaced
# by local stand-ins of the same contract (deploy/local-images/build.sh, built once per machine and found
# by content hash afterwards). Every call goes through the load balancer's port published on 127.0.0.1:
# the README's curl, Inspector and MCP curl blocks as written, a 2025 session served by both replicas, a
# 2026-07-28 call, `docker kill` of a replica (every later call still answered), a restart of each replica
# and then the operator's roll (recreate, reload lb) with the session kept (Redis), a bad JWT_SECRET stopping at config-check with exit 78 and no restart
# loop, and `down -v`. Run with each compose CLI found (`docker compose`, `docker-compose`).
#
# Safe on a shared machine: its own compose project names, and it stops only what it started (those
# projects; dockerd by its pid if none was running). A Docker engine already running is used and left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh

t0=$SECONDS
step() { printf -- '-- [%3d s] %s\n' "$((SECONDS - t0))" "$*"; }
fail() { echo "FAILED: $*"; exit 1; }

work="$(mktemp -d)"
dockerd_pid=""
projects=()
cleanup() {
  local code=$?
  for p in "${projects[@]}"; do
    [ -n "${compose_cli:-}" ] && $compose_cli -p "$p" -f docker-compose.yml down -v --remove-orphans >/dev/null 2>&1 || true
  done
  if [ -n "$dockerd_pid" ]; then
    kill -TERM "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    echo "stopped the dockerd this script started (pid $dockerd_pid)"
  fi
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT

step "Docker engine and compose CLIs"
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
if docker info >/dev/null 2>&1; then
  echo "a Docker engine is running: using it (it is left running)"
else
  setsid dockerd --pidfile "$work/dockerd.pid" >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && break; kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { cat "$work/dockerd.log"; fail "dockerd did not start"; }
  # The daemon's own pid, as it wrote it (setsid may have forked before exec).
  dockerd_pid="$(cat "$work/dockerd.pid")"
  echo "started dockerd (pid $dockerd_pid)"
fi
docker info --format 'engine {{.ServerVersion}}, storage {{.Driver}}, cgroup v{{.CgroupVersion}}'
clis=()
if ! docker compose version >/dev/null 2>&1; then
  # Debian bookworm packages only Compose v1.29: v2 comes from Debian trixie's package, once per machine.
  DOCKER_CONFIG="$(bash deploy/local-images/compose-v2.sh)" && export DOCKER_CONFIG
fi
if docker compose version >/dev/null 2>&1; then clis+=("docker compose"); fi
if command -v docker-compose >/dev/null; then clis+=("docker-compose"); fi
for cli in "${clis[@]}"; do echo "compose CLI: $cli ($($cli version --short 2>/dev/null || $cli version | head -n 1))"; done
[ "${#clis[@]}" -gt 0 ] || fail "no compose CLI"

step "local stand-in images (built once per machine, tagged by content)"
images="$(bash deploy/local-images/build.sh)"
echo "$images"
set -a; eval "$images"; set +a

step "build the app image from ./Dockerfile (NODE_IMAGE=$NODE_IMAGE)"
export MOVIEDB_IMAGE=moviedb-mcp:ci
# The certificates npm must trust beyond Node's own (this machine's TLS-inspecting proxy): the ones in
# NODE_EXTRA_CA_CERTS that Node does not already ship, passed as the documented build argument.
extra_ca=""
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  extra_ca="$(node -e '
    const fs = require("fs"), tls = require("tls");
    const squash = (pem) => pem.replace(/\s+/g, "");
    const known = new Set(tls.rootCertificates.map(squash));
    const pems = fs.readFileSync(process.argv[1], "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    process.stdout.write(pems.filter((pem) => !known.has(squash(pem))).join("\n"));
  ' "$NODE_EXTRA_CA_CERTS")"
  echo "EXTRA_CA_CERTS: $(grep -c 'BEGIN CERTIFICATE' <<<"$extra_ca" || true) certificates from NODE_EXTRA_CA_CERTS"
fi
build_start=$SECONDS
docker build --network host --build-arg NODE_IMAGE="$NODE_IMAGE" --build-arg EXTRA_CA_CERTS="$extra_ca" \
  -t "$MOVIEDB_IMAGE" . >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "docker build"; }
grep -E '^node_modules: ' "$work/build.log" || true
image_bytes="$(docker image inspect -f '{{.Size}}' "$MOVIEDB_IMAGE")"
base_bytes="$(docker image inspect -f '{{.Size}}' "$NODE_IMAGE")"
added_mb=$(((image_bytes - base_bytes) / 1000000))
echo "image $MOVIEDB_IMAGE built in $((SECONDS - build_start)) s ($(grep -c 'Using cache' "$work/build.log" || true) steps from cache):" \
  "$((image_bytes / 1000000)) MB, of which the app adds $added_mb MB to $NODE_IMAGE ($((base_bytes / 1000000)) MB)"
[ "$(docker run --rm --entrypoint id "$MOVIEDB_IMAGE" -u)" != 0 ] || fail "the image runs as root"
[ "$added_mb" -le 80 ] || fail "the app adds $added_mb MB to its base (at most 80 MB)"
# Tracing is not in the default image: an OTLP endpoint there is a configuration error that says so.
code=0
docker run --rm -e JWT_SECRET=ci-secret-ci-secret-ci-secret-ci-secret -e OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
  "$MOVIEDB_IMAGE" >"$work/otel.txt" 2>&1 || code=$?
[ "$code" = 78 ] && grep -q 'TRACING=true' "$work/otel.txt" || { cat "$work/otel.txt"; fail "OTLP endpoint without OpenTelemetry: exit $code"; }
echo "no OpenTelemetry in the default image: an OTLP endpoint stops with exit 78 and names --build-arg TRACING=true"

# The operator's settings: .env.example stands in for .env (every line commented: the defaults), the
# secrets come from the environment; the password has the characters a URL would break on.
export MOVIEDB_ENV_FILE=.env.example
export DATABASE_PASSWORD='p@ss/w:rd#1'
JWT_SECRET="$(node -e 'console.log(require("crypto").randomBytes(36).toString("base64"))')"
export JWT_SECRET

# Everything below goes through the load balancer at $base only.
lb_port="" base="" project=""
compose() { $compose_cli -p "$project" -f docker-compose.yml "$@"; }
# Container ids and addresses from the engine by compose's labels (one docker call, not a compose one).
cid() {
  docker ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=com.docker.compose.service=$1"
}
health() { docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$(cid "$1")"; }
# Waits (at most 240 s for all) until each service's health check passes; "unhealthy" on the way may
# turn healthy again, so only the deadline fails.
wait_healthy() {
  local service deadline=$((SECONDS + 240))
  for service in "$@"; do
    while [ "$(health "$service")" != healthy ]; do
      [ "$SECONDS" -lt "$deadline" ] || {
        compose logs --tail 30 "$service"; fail "$service is not healthy after 240 s ($(health "$service"))"
      }
      sleep 0.5
    done
  done
}
# Which replica has which address (read again after a restart): "address name" lines.
replicas=""
map_replicas() {
  local r
  replicas=""
  for r in app-1 app-2; do
    replicas+="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(cid "$r")") $r"$'\n'
  done
  lb_id="$(cid lb)"
}
name_of() { awk -v a="${1%:*}" '$1 == a { print $2 }' <<<"$replicas"; }
# The replica that served the request with id $1, from the load balancer's access log (after a failed
# attempt, nginx lists every address it tried: the last one answered).
served_by() {
  local tried addr names=()
  tried="$(docker logs "$lb_id" 2>/dev/null | grep -F "request_id=$1 " | tail -n 1 | sed -n 's/.*upstream=\(.*\) upstream_status=.*/\1/p')"
  for addr in ${tried//,/ }; do names+=("$(name_of "$addr")"); done
  [ "${#names[@]}" -gt 0 ] || { echo "(not in the load balancer's log)"; return; }
  if [ "${#names[@]}" -gt 1 ]; then
    echo "${names[-1]} (nginx tried ${names[*]:0:${#names[@]}-1} first, which failed)"
  else
    echo "${names[0]}"
  fi
}
calls=0
# POST /mcp with the JSON-RPC body $2 and extra curl arguments after it; $1 names the call in the log.
# Prints the body; fails unless the answer is 200 with a successful tool result.
mcp_call() {
  local label="$1" body="$2" id="ci-$project-$((calls += 1))" status out
  shift 2
  out="$work/call-$calls"
  status="$(curl -s -o "$out" -w '%{http_code}' --max-time 30 "$base/mcp" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H "authorization: Bearer $TOKEN" -H "x-request-id: $id" \
    "$@" -d "$body")" || status="curl-failed"
  if [ "$status" != 200 ] || ! grep -q '"isError":false' "$out"; then
    echo "call $calls ($label): HTTP $status"; cat "$out"; fail "$label"
  fi
  echo "call $calls: $label -> 200, served by $(served_by "$id")"
}
ENVELOPE='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ci","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
call_2026() {
  mcp_call "2026-07-28 tools/call recommendMoviesForMood" \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"recommendMoviesForMood\",\"arguments\":{\"mood\":\"HORROR\"},$ENVELOPE}}" \
    -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: recommendMoviesForMood'
}
call_session() {
  mcp_call "2025 session tools/call recommendMoviesForMood" \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recommendMoviesForMood","arguments":{"mood":"HORROR"}}}' \
    -H 'mcp-protocol-version: 2025-11-25' -H "mcp-session-id: $SESSION"
}
call_graphql() {
  local id="ci-$project-$((calls += 1))" out="$work/call-$calls" status
  status="$(curl -s -o "$out" -w '%{http_code}' --max-time 30 "$base/graphql" -H 'content-type: application/json' \
    -H "x-request-id: $id" -d '{"query":"{ recommendMoviesForMood(mood: HORROR) { title } }"}')" || status="curl-failed"
  [ "$status" = 200 ] && grep -q '"title":"Se7en"' "$out" || { echo "HTTP $status"; cat "$out"; fail "/graphql call $calls"; }
  echo "call $calls: POST /graphql recommendMoviesForMood -> 200, served by $(served_by "$id")"
}
# Runs the calls $@ (function names), then the last of them again until both replicas have served one:
# nginx skips a replica that just refused a connection for 10 s, so right after a restart the other one
# may serve every call for that long. Every call must succeed; after 40 s it fails.
expect_both_replicas() {
  local seen="" call deadline=$((SECONDS + 40))
  for call in "$@"; do
    "$call" >"$work/one-call"; cat "$work/one-call"
    seen+=" $(sed -n 's/.*served by \([^ ]*\).*/\1/p' "$work/one-call")"
  done
  while ! { grep -qw app-1 <<<"$seen" && grep -qw app-2 <<<"$seen"; }; do
    [ "$SECONDS" -lt "$deadline" ] || fail "not served by both replicas within 40 s:$seen"
    "$call" >"$work/one-call"; cat "$work/one-call"
    seen+=" $(sed -n 's/.*served by \([^ ]*\).*/\1/p' "$work/one-call")"
    sleep 0.5
  done
}
run_readme_block() {
  local name="$1"
  doc_block "$name" "$lb_port" >"$work/readme-$name.sh" || fail "ci:run $name is not marked on exactly one page"
  [ -s "$work/readme-$name.sh" ] || fail "no page has a block marked ci:run $name"
  (
    export npm_config_cache="${npm_config_cache:-$HOME/.npm}" PORT="$lb_port" HOME="$work/home" XDG_CONFIG_HOME="$work/config"
    set -euo pipefail; TOKEN="${TOKEN:-}"; source "$work/readme-$name.sh"; echo "TOKEN=$TOKEN" >"$work/token.env"
  ) >"$work/readme-$name.txt" 2>"$work/readme-$name.err" || { cat "$work/readme-$name.txt" "$work/readme-$name.err"; fail "block $name"; }
  grep -q -- "$2" "$work/readme-$name.txt" || { cat "$work/readme-$name.txt"; fail "block $name did not print $2"; }
  echo "block '$name' ran as written through the load balancer (printed $2)"
}

scenario() {
  compose_cli="$1"
  project="moviedb-ci-$$-$([ "$compose_cli" = docker-compose ] && echo v1 || echo v2)"
  projects+=("$project" "$project-badconfig")
  lb_port="$(free_port)"
  export LB_PORT="$lb_port" PUBLIC_URL="http://127.0.0.1:$lb_port"
  base="$PUBLIC_URL"
  echo
  step "[$compose_cli] config -q (.env.example as the operator's .env)"
  compose config -q
  echo "docker-compose.yml is valid"
  step "[$compose_cli] up -d (project $project, load balancer on 127.0.0.1:$lb_port)"
  local up_start=$SECONDS
  compose up -d --no-build 2>&1 | sed 's/^/  /'
  wait_healthy postgres redis app-1 app-2 lb
  map_replicas
  echo "the stack is up and every service healthy in $((SECONDS - up_start)) s"
  compose ps | sed 's/^/  /'
  [ "$(docker inspect -f '{{.State.ExitCode}}' "$(cid config-check)")" = 0 ] || fail "config-check did not exit 0"

  TOKEN=""
  if [ "$compose_cli" = "${clis[0]}" ]; then
    # The stack is the same under either CLI: the README's blocks (the Inspector's npx is the slow one)
    # run under the first; the second signs in with the same curl.
    # The quick start and Inspector blocks mint their token with the local CLI (the single server's
    # secret and database): they run against one server in mcp-clients.sh. Through the load balancer, the
    # GraphQL block signs in with curl and the MCP blocks use its token.
    step "[$compose_cli] the docs' curl and MCP blocks through the load balancer"
    run_readme_block graphql-curl '"status":"WANT_TO_WATCH","content":{"title":"Top Gun: Maverick"}'
    source "$work/token.env"; export TOKEN
    run_readme_block mcp-curl '"isError":false'
    run_readme_block mcp-2026-curl '"isError":false'
  else
    step "[$compose_cli] the docs' GraphQL curl block through the load balancer"
    run_readme_block graphql-curl '"status":"WANT_TO_WATCH","content":{"title":"Top Gun: Maverick"}'
    source "$work/token.env"; export TOKEN
  fi
  for a in graphiql.css react.js react-dom.js graphiql.js init.js; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/graphiql/$a")" = 200 ] || fail "GraphiQL asset $a"
  done
  echo "GraphiQL's page and its five assets answer 200"

  step "[$compose_cli] a 2025 session served by both replicas, and 2026-07-28 calls"
  local headers="$work/init-headers"
  curl -s -D "$headers" -o /dev/null "$base/mcp" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H "authorization: Bearer $TOKEN" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}'
  SESSION="$(grep -i '^mcp-session-id:' "$headers" | cut -d' ' -f2 | tr -d '\r')"
  [ -n "$SESSION" ] || { cat "$headers"; fail "initialize gave no session"; }
  curl -s -o /dev/null "$base/mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "authorization: Bearer $TOKEN" -H 'mcp-protocol-version: 2025-11-25' -H "mcp-session-id: $SESSION" \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "session $SESSION"
  expect_both_replicas call_session call_session call_session call_session
  expect_both_replicas call_2026 call_2026 call_2026 call_2026

  step "[$compose_cli] docker kill app-1: every new call still answered"
  docker kill "$(cid app-1)" >/dev/null
  echo "app-1 killed ($(docker inspect -f '{{.State.Status}}' "$(cid app-1)"))"
  for _ in 1 2 3; do call_session; call_2026; call_graphql; done

  step "[$compose_cli] restart app-1, then app-2: the session is kept (Redis)"
  local restart_start=$SECONDS
  compose restart app-1 2>&1 | sed 's/^/  /'
  wait_healthy app-1
  compose restart app-2 2>&1 | sed 's/^/  /'
  wait_healthy app-2
  map_replicas
  echo "both replicas restarted and healthy in $((SECONDS - restart_start)) s"
  expect_both_replicas call_session call_session call_session call_session call_2026 call_2026

  if [ "$compose_cli" = "${clis[0]}" ]; then
    # The operator's page's commands, under the first CLI (Compose v2 where there is one).
    step "[$compose_cli] roll a new image replica by replica (docs/docker-compose.md): the session is kept"
    local roll_start=$SECONDS replica
    for replica in app-1 app-2; do
      compose up -d --no-deps --force-recreate "$replica" 2>&1 | sed 's/^/  /'
      wait_healthy "$replica"
      compose exec -T lb nginx -s reload 2>&1 | sed 's/^/  /'
      map_replicas
      echo "$replica recreated, healthy, and lb reloaded at $((SECONDS - roll_start)) s"
      call_session
    done
    expect_both_replicas call_session call_session call_session call_session
  fi

  step "[$compose_cli] down -v"
  compose down -v 2>&1 | sed 's/^/  /'
  [ -z "$(docker ps -aq --filter "label=com.docker.compose.project=$project")" ] || fail "containers left after down"
  [ -z "$(docker volume ls -q --filter "label=com.docker.compose.project=$project")" ] || fail "volumes left after down -v"
  echo "no container or volume of $project is left"

  step "[$compose_cli] a bad JWT_SECRET stops at config-check with exit 78, and nothing restarts"
  project="$project-badconfig"
  local code=0
  JWT_SECRET=too-short compose up -d --no-build >"$work/bad-up.txt" 2>&1 || code=$?
  sed 's/^/  /' "$work/bad-up.txt"
  [ "$code" -ne 0 ] || fail "up -d succeeded with a bad JWT_SECRET"
  local check
  check="$(cid config-check)"
  [ "$(docker inspect -f '{{.State.ExitCode}} {{.RestartCount}}' "$check")" = "78 0" ] ||
    fail "config-check: $(docker inspect -f 'exit {{.State.ExitCode}}, restarts {{.RestartCount}}' "$check")"
  # To a file first: under pipefail, grep -q leaving early would fail the pipe with docker logs' SIGPIPE.
  docker logs "$check" >"$work/bad-check.log" 2>&1
  grep -q 'JWT_SECRET' "$work/bad-check.log" || { cat "$work/bad-check.log"; fail "config-check did not name JWT_SECRET"; }
  docker logs "$check" 2>&1 | sed 's/^/  config-check: /' | head -n 5
  for replica in app-1 app-2; do
    id="$(cid "$replica")"
    if [ -n "$id" ] && [ "$(docker inspect -f '{{.State.StartedAt}}' "$id")" != 0001-01-01T00:00:00Z ]; then
      fail "$replica started although config-check failed"
    fi
  done
  # No restart loop: the engine is told never to restart it, and it has not been.
  [ "$(docker inspect -f '{{.HostConfig.RestartPolicy.Name}} {{.State.Status}} {{.RestartCount}}' "$check")" = "no exited 0" ] ||
    fail "config-check: $(docker inspect -f 'restart {{.HostConfig.RestartPolicy.Name}}, {{.State.Status}}, restarts {{.RestartCount}}' "$check")"
  echo "config-check exited 78 naming JWT_SECRET, was not restarted, and no replica started"
  compose down -v 2>&1 | sed 's/^/  /'
  step "[$compose_cli] done: $calls calls through the load balancer, all answered"
}

for cli in "${clis[@]}"; do scenario "$cli"; done
step "docker-compose.yml ran under: ${clis[*]}"
