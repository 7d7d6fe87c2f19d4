#!/bin/sh
# The official image's templates step (20-envsubst-on-templates.sh), with its variable names and defaults.
set -eu
if [ "${1:-}" = nginx ]; then
  dir="${NGINX_ENVSUBST_TEMPLATE_DIR:-/etc/nginx/templates}"
  suffix="${NGINX_ENVSUBST_TEMPLATE_SUFFIX:-.template}"
  out="${NGINX_ENVSUBST_OUTPUT_DIR:-/etc/nginx/conf.d}"
  filter="${NGINX_ENVSUBST_FILTER:-}"
  # Only the names that are set and match the filter: nginx's own $variables stay as they are.
  defined="$(printf '${%s} ' $(awk "END { for (name in ENVIRON) { print (name ~ /${filter}/) ? name : \"\" } }" </dev/null))"
  if [ -d "$dir" ]; then
    for template in "$dir"/*"$suffix"; do
      [ -f "$template" ] || continue
      name="$(basename "$template" "$suffix")"
      echo "docker-entrypoint.sh: $template -> $out/$name" >&2
      envsubst "$defined" <"$template" >"$out/$name"
    done
  fi
fi
exec "$@"
