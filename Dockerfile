# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and the native SQLite binding, then drop dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `prepare` runs scripts/build-if-stale.mjs, which skips the build while src/ is not copied yet.
COPY scripts ./scripts
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only, as the unprivileged node user.
FROM node:22-bookworm-slim
# A public bind must name the Host values it is reached by (DNS-rebinding protection); the default fits
# `docker run -p 127.0.0.1:8080:8080`. Set PUBLIC_URL (and MCP_ALLOWED_HOSTS) for a real deployment.
ENV NODE_ENV=production \
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
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
