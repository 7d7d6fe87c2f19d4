/**
 * createApp builds the server's request listener from its dependencies and never listens (server.ts
 * does), so tests run the real app on port 0: the Express application, behind the node:http front
 * (src/http/front.ts) unless HTTP_FRONT is off or tracing is configured (the request span is Express
 * middleware).
 */
import type { RequestListener } from 'node:http';
import express from 'express';
import type { Config } from './config.js';
import type { BearerVerifier } from './auth/bearer.js';
import type { TokenService } from './auth/tokens.js';
import type { Executor } from './graphql/executor.js';
import type { AbuseLimits } from './limits/abuse-limits.js';
import type { RedisConnection } from './limits/redis-connection.js';
import type { Logger } from './logger.js';
import type { Store } from './store/index.js';
import type { Tracing } from './telemetry/tracing.js';
import { createHostCheck, refuseForeignHosts } from './http/allowed-hosts.js';
import { authenticate } from './http/authenticate.js';
import { errorHandler, notFoundHandler } from './http/error-handlers.js';
import { graphiqlAssets, sendGraphiQL, wantsGraphiQL } from './http/graphiql.js';
import { createFront } from './http/front.js';
import { graphqlRoute } from './http/graphql-route.js';
import { healthRoutes } from './http/health.js';
import { mcpRoutes, type McpRouteOptions } from './http/mcp-route.js';
import type { DrainGate } from './http/drain-gate.js';
import type { Metrics } from './http/metrics.js';
import { readBody } from './http/read-body.js';
import { requestContext } from './http/request-context.js';
import { createOAuthServer } from './oauth/oauth-server.js';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  store: Store;
  tokens: TokenService;
  executor: Executor;
  verifier: BearerVerifier;
  mcp: Omit<McpRouteOptions, 'mcp' | 'listenHost' | 'bodyLimitBytes' | 'verifier'>;
  metrics: Metrics;
  limits: AbuseLimits;
  /** Refuses new requests while the server drains (server.ts drives its phases). */
  drain: DrainGate;
  /** Shared state's connection when REDIS_URL is set; /readyz reports it. */
  redis?: Pick<RedisConnection, 'health'>;
  /** Present only when tracing is configured (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Pick<Tracing, 'traceRequests'>;
  /** The JWT secret: with it, and no OAUTH_ISSUER, the built-in authorization server (src/oauth/) is on. */
  oauthSecret?: string;
  /** Told who answered each request the node:http front began (tests). */
  onFrontAnswer?: (path: string, by: 'front' | 'express') => void;
}

export function createApp(deps: AppDependencies): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Which X-Forwarded-For hops name the client (req.ip): the address rate limits count (TRUST_PROXY).
  app.set('trust proxy', deps.config.trustProxy);

  // First, so the request's span covers (and is the parent of) everything after it.
  if (deps.tracing) app.use(deps.tracing.traceRequests);
  app.use(requestContext(deps.logger));
  app.use(deps.drain.middleware);
  app.use(deps.metrics.middleware);
  // Routers mounted as routes of their own paths: a request elsewhere does not walk into them.
  app.get('/metrics', deps.metrics.routes());
  app.get(
    ['/healthz', '/readyz'],
    healthRoutes({
      ping: () => deps.store.handle.ping(),
      isDraining: () => deps.drain.phase() !== 'serving',
      redis: deps.redis && (() => deps.redis!.health()),
    }),
  );

  // The same Host rule as /mcp (DNS rebinding); probes stay open to load balancers that send an address.
  const hostCheck = createHostCheck(deps.config.mcp, deps.config.host);
  app.all('/graphql', refuseForeignHosts(hostCheck));
  if (deps.config.graphql.graphiql) {
    app.get('/graphiql/:asset', graphiqlAssets());
    app.get('/graphql', (req, res, next) => (wantsGraphiQL(req) ? sendGraphiQL(res) : next()));
  }
  const graphql = graphqlRoute(
    deps.executor,
    { store: deps.store, tokens: deps.tokens, limits: deps.limits },
    deps.metrics.observeOperation,
  );
  app.all(
    '/graphql',
    // Read the raw body (bounded) whatever its type: graphql-http decides per the spec what it accepts.
    readBody(deps.config.bodyLimitBytes),
    authenticate(deps.verifier),
    graphql,
  );

  const mcp = mcpRoutes({
    ...deps.mcp,
    mcp: deps.config.mcp,
    listenHost: deps.config.host,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    verifier: deps.verifier,
  });
  app.use(mcp.router);

  // The built-in OAuth 2.1 authorization server, on the MCP SDK's handlers (why: src/oauth/oauth-server.ts).
  if (deps.oauthSecret && !deps.config.oauth) {
    const { store, tokens, limits } = deps;
    const publicUrl = deps.config.mcp.publicUrl;
    app.use(createOAuthServer({ store, tokens, limits, secret: deps.oauthSecret, publicUrl, hostCheck }));
  }

  app.use(notFoundHandler);
  app.use(errorHandler);
  if (!deps.config.httpFront || deps.tracing) return app;
  return createFront({
    express: app,
    trust: app.get('trust proxy fn') as (address: string, hop: number) => boolean,
    logger: deps.logger,
    drain: deps.drain,
    metrics: deps.metrics,
    verifier: deps.verifier,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    hostCheck,
    graphql,
    mcp: mcp.front,
    mcpMode: deps.config.mcp.mode,
    onAnswer: deps.onFrontAnswer,
  });
}
