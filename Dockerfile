# moviedb-mcp: compiled TypeScript and production dependencies on Node 22, as the unprivileged node user.
# Build arguments (docs/docker-compose.md):
#   NODE_IMAGE      the Node 22 image both stages start from (default the official node:22-bookworm-slim;
#                   any Debian-based image with Node in /usr/local, headers included, and a user node)
#   EXTRA_CA_CERTS  PEM certificates npm must trust besides Node's own, for a build behind a TLS-inspecting
#                   proxy: --build-arg EXTRA_CA_CERTS="$(cat corp-ca.pem)". Used by the build stage only,
#                   never part of the runtime image (it stays in the build stage's history: certificates
#                   are public, but do not pass anything secret this way)
#   TRACING         true keeps the optional OpenTelemetry packages, needed for OTEL_EXPORTER_OTLP_ENDPOINT
#                   (default false: about 28 MB the default install does without)
ARG NODE_IMAGE=node:22-bookworm-slim

# Build stage: production dependencies (the native SQLite binding compiled), then the TypeScript compiled
# by the lock's TypeScript alone: type checking is CI's job (npm run check), so the build stage needs
# none of the dev dependencies (tests, lint, benchmarks), about half of the packages.
FROM ${NODE_IMAGE} AS build
ARG EXTRA_CA_CERTS=""
ARG TRACING=false
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# node-gyp builds better-sqlite3 against the headers of this image's Node instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# `prepare` runs scripts/build-if-stale.mjs, which skips the build while src/ is not copied yet.
COPY scripts ./scripts
RUN if [ -n "$EXTRA_CA_CERTS" ]; then \
      printf '%s\n' "$EXTRA_CA_CERTS" >/tmp/extra-ca.pem && export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.pem; \
    fi \
  && npm ci --omit=dev $( [ "$TRACING" = true ] || echo --omit=optional ) --no-audit --no-fund \
  && lock() { node -p "require('./package-lock.json').packages['node_modules/$1'].version"; } \
  && npm install --prefix /opt/typescript --no-save --no-audit --no-fund \
       "typescript@$(lock typescript)" "@types/node@$(lock @types/node)" \
  && rm -f /tmp/extra-ca.pem
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY deploy/docker/slim-node-modules.mjs ./deploy/docker/
# verbatimModuleSyntax and isolatedModules make each file's output independent of type information.
RUN /opt/typescript/node_modules/.bin/tsc -p tsconfig.build.json --noCheck --sourceMap false \
      --typeRoots /opt/typescript/node_modules/@types \
  && node deploy/docker/slim-node-modules.mjs

# Runtime stage: production dependencies and compiled code only, as the unprivileged node user.
FROM ${NODE_IMAGE}
# A public bind must name the Host values it is reached by (DNS-rebinding protection); the default fits
# `docker run -p 127.0.0.1:8080:8080`. Set PUBLIC_URL (and MCP_ALLOWED_HOSTS) for a real deployment.
# MALLOC_MMAP_THRESHOLD_: each password hash (scrypt) takes a 16 MiB buffer on a thread-pool thread; with
# glibc's sliding threshold those came from per-thread arenas and stayed resident after they were freed
# (about 70 MB of an idle server, measured: docs/benchmarks.md, Memory). A fixed threshold maps and
# unmaps them instead.
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data \
    MCP_ALLOWED_HOSTS=localhost,127.0.0.1
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY schema ./schema
COPY operations ./operations
COPY seed ./seed
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
