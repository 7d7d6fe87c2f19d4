# Helpers for CI scripts on a shared machine: free ports come from the OS, and only processes this
# script started are ever signalled, by pid (never by name or pattern).

# A TCP port the OS reports free on 127.0.0.1 (bind to port 0, read the port, release it).
free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

# The deepest descendant of a pid we started (npm → sh → node): the process that serves.
leaf_pid() {
  local pid="$1" child
  while child="$(ps -o pid= --ppid "$pid" | head -n 1 | tr -d ' ')" && [ -n "$child" ]; do pid="$child"; done
  echo "$pid"
}

# Waits until $1 answers 2xx, or the process $2 exits (then prints $3, its log, and fails).
wait_ready() {
  local url="$1" pid="$2" log="$3"
  for _ in $(seq 1 240); do
    curl -fsS "$url" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "the server exited before it was ready:"; cat "$log"; return 1; }
    sleep 0.5
  done
  echo "the server was not ready after 120 s:"; cat "$log"; return 1
}

# The pages whose fenced blocks CI runs: the README and every page under docs/.
DOC_PAGES=(README.md docs/*.md)

# Every block name marked `<!-- ci:run NAME -->` in those pages, one per line, as `page NAME`.
doc_block_names() {
  grep -Ho '^<!-- ci:run [a-z0-9-]* -->$' "${DOC_PAGES[@]}" | sed -E 's/^([^:]*):<!-- ci:run ([a-z0-9-]*) -->$/\1 \2/'
}

# The fenced block that follows `<!-- ci:run NAME -->` in whichever page marks it (a name may be marked
# once in all pages), with 127.0.0.1:8080 replaced by 127.0.0.1:$2 (the only substitution CI makes;
# TOKEN and SESSION are set by the blocks themselves).
doc_block() {
  local name="$1" port="$2" pages
  pages="$(grep -lx -- "<!-- ci:run $name -->" "${DOC_PAGES[@]}" || true)"
  [ "$(wc -w <<<"$pages")" -eq 1 ] || { echo "ci:run $name is marked in: ${pages:-no page}" >&2; return 1; }
  awk -v marker="<!-- ci:run $name -->" '
    $0 == marker { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }
  ' "$pages" | sed "s/127\.0\.0\.1:8080/127.0.0.1:$port/g"
}

# Debian's Chromium at /usr/bin/chromium, installed when missing: the browser tests and the mcp-remote
# sign-in (.ci/real-clients.sh) drive it with playwright-core, which downloads no browser of its own.
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "Chromium is missing; installing it"
    apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null
  fi
  /usr/bin/chromium --version
}
