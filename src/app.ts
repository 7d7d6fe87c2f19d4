/**
 * createApp builds the server's request listener from its dependencies and never listens (server.ts
 * does), so tests run the real app on port 0: the Express application, with /graphql and /mcp each one
 * handler dispatched in front of it, wrapped in the request spans when tracing is configured (the same
 * listener either way).
 */
import type { RequestListener } from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Config } from './config.js';
import type { BearerVerifier } from './auth/bearer.js';
import type { TokenService } from './auth/tokens.js';
import type { Executor } from './graphql/executor.js';
import type { AbuseLimits } from './limits/abuse-limits.js';
import type { RedisConnection } from './shared-state/redis-connection.js';
import type { Logger } from './logger.js';
import type { Store } from './store/index.js';
import type { Tracing } from './telemetry/tracing.js';
import { createHostCheck } from './http/allowed-hosts.js';
import { errorHandler, notFoundHandler } from './http/error-handlers.js';
import { graphiqlAssets } from './http/graphiql.js';
import { createGraphQLHandler, dispatchPath } from './http/graphql-handler.js';
import { graphqlRoute } from './http/graphql-route.js';
import { healthRoutes } from './http/health.js';
import { createMcpHandler } from './http/mcp-handler.js';
import { mcpRoutes, type McpRouteOptions } from './http/mcp-route.js';
import type { DrainGate } from './http/drain-gate.js';
import type { Metrics } from './http/metrics.js';
import type { BodyLimits } from './http/read-body.js';
import { requestContext } from './http/request-context.js';
import {
  GRAPHIQL_ASSET_PREFIX,
  GRAPHQL_PATH,
  HEALTH_ROUTES,
  MCP_PATH,
  METRICS_PATH,
  routeOf,
} from './http/route-table.js';
import type { OAuthServerOptions } from './oauth/oauth-server.js';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  store: Store;
  tokens: TokenService;
  executor: Executor;
  verifier: BearerVerifier;
  mcp: Omit<McpRouteOptions, 'mcp' | 'listenHost' | 'body' | 'verifier' | 'trust'>;
  metrics: Metrics;
  limits: AbuseLimits;
  /** Refuses new requests while the server drains (server.ts drives its phases). */
  drain: DrainGate;
  /** Shared state's connection when REDIS_URL is set; /readyz reports it. */
  redis?: Pick<RedisConnection, 'health'>;
  /** Present only when tracing is configured (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Pick<Tracing, 'traceListener'>;
  /** The JWT secret: with it, and no OAUTH_ISSUER, the built-in authorization server (src/oauth/) is on. */
  oauthSecret?: string;
}

export function createApp(deps: AppDependencies): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Paths are exact (route-table.ts): no second spelling for the routers or the drain gate.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // Which X-Forwarded-For hops name the client (req.ip): the address rate limits count (TRUST_PROXY).
  app.set('trust proxy', deps.config.trustProxy);
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;

  // /graphql and /mcp are each one handler that begins, guards and answers its requests itself,
  // dispatched by exact path before Express (below). The same Host rule for both (DNS rebinding).
  const hostCheck = createHostCheck(deps.config.mcp, deps.config.host);
  // The one body reader's bounds, for both endpoints (read-body.ts).
  const body: BodyLimits = {
    limitBytes: deps.config.body.limitBytes,
    lingerMs: deps.config.body.lingerMs,
    lingerBytes: deps.config.body.lingerBytes,
  };
  const graphql = createGraphQLHandler({
    logger: deps.logger,
    drain: deps.drain,
    metrics: deps.metrics,
    verifier: deps.verifier,
    body,
    hostCheck,
    trust,
    graphiql: deps.config.graphql.graphiql,
    route: graphqlRoute(
      deps.executor,
      { store: deps.store, tokens: deps.tokens, limits: deps.limits },
      deps.metrics.observeOperation,
    ),
  });

  app.use(requestContext(deps.logger));
  app.use(deps.drain.middleware);
  app.use(deps.metrics.middleware);
  // The routers below (their own Router()s match loosely) only ever see a path of the table.
  app.use((req, res, next) => (routeOf(req.path) ? next() : notFoundHandler(req, res, next)));
  // Routers mounted as routes of their own paths: a request elsewhere does not walk into them.
  app.get(METRICS_PATH, deps.metrics.routes());
  app.get(
    HEALTH_ROUTES,
    healthRoutes({
      ping: () => deps.store.handle.ping(),
      isDraining: () => deps.drain.phase() !== 'serving',
      redis: deps.redis && (() => deps.redis!.health()),
    }),
  );

  if (deps.config.graphql.graphiql) app.get(`${GRAPHIQL_ASSET_PREFIX}:asset`, graphiqlAssets());

  const mcp = mcpRoutes({
    ...deps.mcp,
    mcp: deps.config.mcp,
    listenHost: deps.config.host,
    body,
    verifier: deps.verifier,
    trust,
  });
  app.use(mcp.router);

  // The built-in OAuth 2.1 authorization server, on the MCP SDK's handlers (why: src/oauth/oauth-server.ts).
  if (deps.oauthSecret && !deps.config.oauth) {
    const { store, tokens, limits } = deps;
    const publicUrl = deps.config.mcp.publicUrl;
    app.use(lazyOAuthServer({ store, tokens, limits, secret: deps.oauthSecret, publicUrl, hostCheck }));
  }

  app.use(notFoundHandler);
  app.use(errorHandler);
  // The same measure for /mcp's one handler as for /graphql's: Express stays the app for everything
  // else (the metadata beside it, probes, GraphiQL's files, every 404).
  const mcpHandler = createMcpHandler({
    logger: deps.logger,
    drain: deps.drain,
    metrics: deps.metrics,
    trust,
    endpoint: mcp.endpoint,
  });
  // A POST of a cached query, answered by this same handler mounted in Express and dispatched in front
  // of it (autocannon, 50 connections, loopback, SQLite, server on one core, 4 alternating rounds of 6 s,
  // 2026-12-01, a shared 2-core machine): Express 772 req/s at 414 µs CPU a request, the dispatch 2841
  // req/s at 207 µs. Express costs far more than 10% of the throughput, so /graphql is dispatched first,
  // and /mcp (whose hot POSTs the old node:http front served below Express for the same reason) too.
  const served = dispatchPath(GRAPHQL_PATH, graphql, dispatchPath(MCP_PATH, mcpHandler, app));
  // Around the whole listener, so the request's span is the parent of everything it runs.
  return deps.tracing ? deps.tracing.traceListener(served, trust) : served;
}

/**
 * The authorization server, imported when one of its paths is first asked for: the v1 SDK's handlers
 * and what they bring (its zod schemas, express-rate-limit, cors) hold about 1 MB of heap and 2 MB of
 * resident code that a server whose clients bring their tokens never uses. The first OAuth request
 * waits for the import once (about 50 ms); sign-in is a person at a browser form.
 */
function lazyOAuthServer(options: OAuthServerOptions): RequestHandler {
  let router: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    if (routeOf(req.path) !== 'oauth') return next();
    router ??= import('./oauth/oauth-server.js').then(({ createOAuthServer }) => createOAuthServer(options));
    router.then((handle) => handle(req, res, next), next);
  };
}
