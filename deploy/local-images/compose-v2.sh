#!/usr/bin/env bash
# Compose v2 (`docker compose`, what users run) for a Debian bookworm machine, which packages only
# Compose v1.29: Debian trixie's docker-compose package is Compose v2 built for glibc >= 2.34, so its
# plugin runs on bookworm as it is. apt fetches the package with a private configuration (nothing is
# added to the machine's sources, nothing installed), and the plugin is kept in a cache folder, once per
# machine. Prints a DOCKER_CONFIG folder whose cli-plugins/ holds it:
#
#   export DOCKER_CONFIG="$(bash deploy/local-images/compose-v2.sh)"; docker compose version
set -euo pipefail
VERSION=2.26.1-4
cache="${MOVIEDB_CACHE:-/var/cache/moviedb-local}/compose-$VERSION"
plugin="$cache/docker-config/cli-plugins/docker-compose"
if [ ! -x "$plugin" ]; then
  apt_dir="$(mktemp -d)"
  trap 'rm -rf "$apt_dir"' EXIT
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/deb"
  echo "deb ${DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie main" >"$apt_dir/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  echo "[compose-v2] fetching Debian trixie's docker-compose $VERSION" >&2
  apt-get "${opts[@]}" update -q >/dev/null
  (cd "$apt_dir/deb" && apt-get "${opts[@]}" download -q "docker-compose=$VERSION" >/dev/null)
  dpkg-deb -x "$apt_dir"/deb/docker-compose_*.deb "$apt_dir/root"
  mkdir -p "$(dirname "$plugin")"
  install -m 755 "$apt_dir/root/usr/libexec/docker/cli-plugins/docker-compose" "$plugin"
fi
echo "$cache/docker-config"
