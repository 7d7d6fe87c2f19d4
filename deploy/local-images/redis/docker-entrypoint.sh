#!/bin/sh
# The official image's contract: arguments that start with "-" (or a .conf file) are redis-server's.
set -eu
case "${1:-}" in -* | *.conf) set -- redis-server "$@" ;; esac
if [ "${1:-}" = redis-server ]; then
  shift
  # A configuration file must stay the first argument; the flag comes after it, before the rest.
  case "${1:-}" in
    *.conf) conf="$1"; shift; set -- redis-server "$conf" --protected-mode no "$@" ;;
    *) set -- redis-server --protected-mode no "$@" ;;
  esac
  if [ "$(id -u)" = 0 ]; then exec setpriv --reuid redis --regid redis --init-groups "$@"; fi
fi
exec "$@"
