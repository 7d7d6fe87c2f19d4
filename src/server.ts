/**
 * Wires the running server from a validated Config: database (migrated and seeded), tokens, schema,
 * executor, app; listens; and drains on close. main.ts and the tests both start the server through here.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Config } from './config.js';
import { urlHost } from './http/url-host.js';
import { closeServer, type CloseServerOptions } from './http/close-server.js';
import { createApp } from './app.js';
import { resolveJwtSecret } from './auth/resolve-jwt-secret.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createBearerVerifier } from './auth/bearer.js';
import { withVerificationCache } from './auth/verification-cache.js';
import { withAccountCheck } from './auth/account-check.js';
import { createOperationCompiler } from './graphql/compile-operation.js';
import { createExecutor } from './graphql/executor.js';
import { createResultCache } from './graphql/result-cache.js';
import { answerClientErrors } from './http/answer-client-errors.js';
import { createDrainGate } from './http/drain-gate.js';
import { createMetrics } from './http/metrics.js';
import { createToolRunner } from './mcp/tool-runner.js';
import { createConfirmationSigner } from './mcp/confirm-call.js';
import { createPrompts } from './mcp/prompts.js';
import { createResources } from './mcp/resources.js';
import { approveByLock, assertMatchesLock } from './mcp/tool-lock.js';
import { createSchemaTools } from './mcp/schema-tools.js';
import { createOperationCatalogue } from './operations/operation-catalogue.js';
import { buildSchema } from './graphql/schema.js';
import { chooseLogFormat, createLogger, type Logger } from './logger.js';
import { createAbuseLimits } from './limits/abuse-limits.js';
import { createRedisRateLimiterFactory } from './shared-state/redis-rate-limiter-factory.js';
import { createSharedState } from './shared-state/shared-state.js';
import { shareInvalidations } from './shared-state/share-invalidations.js';
import { openDatabase } from './store/database.js';
import { createStore, type Store } from './store/index.js';
import { startTracing } from './telemetry/start-tracing.js';

/**
 * After the drain settled, requests are answered with Connection: close until none came or was being
 * answered for 100 ms, first with the listener open, then closed; 1 s at most (close-server.ts).
 */
const CLOSE_AFTER_DRAIN = { quietMs: 100, maxMs: 1000 };

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  tokens: TokenService;
  logger: Logger;
  /**
   * Drains (SIGTERM): readiness turns false, the pre-stop delay runs, new requests get 503 while those
   * already received finish (up to the grace period), then sessions and connections close and the
   * database last. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

export interface ServerOptions {
  logger?: Logger;
  /** Observes every SQL statement (tests count queries with it). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /**
   * How long a remembered account is trusted without a change notice (5 s): tests lengthen it to show
   * that the notice, not the expiry, refused a deleted account.
   */
  accountMaxAgeMs?: number;
  /**
   * Node's bounds on slow clients (headers within 10 s, a whole request within 30 s, swept every second):
   * tests shorten them so that proving the bounds does not mean waiting them out.
   */
  httpTimeouts?: { headersMs: number; requestMs: number };
  /**
   * After the drain settled, how long requests are still answered (CLOSE_AFTER_DRAIN): tests lengthen it
   * so that sending in time does not depend on the machine's speed.
   */
  closeAfterDrain?: CloseServerOptions;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger =
    options.logger ??
    createLogger(
      config.log.level,
      undefined,
      chooseLogFormat(config.log.format, process.stdout.isTTY === true),
    );
  // Everything that can be validated without the database is, before it is opened.
  const schema = buildSchema();
  // Undefined unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then no hook below costs anything.
  const tracing = await startTracing(config.tracing, logger);
  const metrics = createMetrics();
  const cache =
    config.resultCache &&
    createResultCache(schema, { ...config.resultCache, onLookup: metrics.observeCacheLookup });
  cache?.onInvalidate(() => metrics.observeCacheInvalidation('local'));
  const executor = createExecutor(
    schema,
    config.graphql,
    (error, reference) => logger.error({ err: error, reference }, 'error outside execution'),
    tracing?.traceExecute,
    cache,
    createOperationCompiler(schema, {
      ...config.graphql.compiler,
      onCompiled: (event) =>
        logger.debug({ ...event, operation: event.operation ?? null }, 'operation compiled'),
    }),
  );
  const catalogue = createOperationCatalogue({
    executor,
    dir: config.operations.dir,
    logger,
    watch: config.operations.watch,
    // In production a reload must match the reviewed tool lock; elsewhere editing a tool is the point.
    approve: config.nodeEnv === 'production' ? approveByLock(config.operations.dir, logger) : undefined,
    schemaTools: createSchemaTools({
      executor,
      limits: config.graphql,
      mode: config.mcp.schemaTools,
      resultMaxChars: config.mcp.resultMaxChars,
    }),
  });
  // In production the catalogue served must be the one its lock approves, from the start as on reload.
  if (config.nodeEnv === 'production') {
    await assertMatchesLock(catalogue.current(), config.operations.dir, logger).catch((error: unknown) => {
      catalogue.close();
      throw error;
    });
  }
  const handle = await openDatabase({
    ...config.database,
    statementTimeoutMs: config.resilience.statementTimeoutMs,
    onQuery: options.onQuery,
    onQueryEvent: tracing?.observeQuery,
    onConnectionError: (error) => logger.warn({ err: error }, 'database connection failed'),
  }).catch((error: unknown) => {
    catalogue.close();
    throw error;
  });
  // Signatures are remembered for a minute; accounts until the store reports a change (at most 5 s).
  const accountChanges = handle.watchAccountChanges();
  const store = createStore(
    handle,
    {
      defaultTimeoutMs: config.resilience.graphqlTimeoutMs,
      failureThreshold: config.resilience.circuitFailures,
      probeIntervalMs: config.resilience.circuitProbeMs,
      readRetries: config.resilience.readRetries,
      onStateChange: (state) => logger.warn({ circuit: state }, 'store circuit changed state'),
    },
    accountChanges,
  );
  const jwtSecret = resolveJwtSecret(config.jwt.secret, config.database.dataDir);
  const tokens = createTokenService({ ...config.jwt, secret: jwtSecret });
  // Signed with a key derived from the JWT secret, so every replica verifies what any replica issued.
  const confirmations = createConfirmationSigner(jwtSecret);
  // A caller's own reads (its watch list) are kept while the same feed reports every change to them.
  cache?.followViewers(accountChanges);
  const verifier = withAccountCheck(
    withVerificationCache(
      createBearerVerifier(
        tokens,
        config.oauth && config.mcp.publicUrl
          ? { ...config.oauth, audience: `${config.mcp.publicUrl}/mcp` }
          : undefined,
      ),
      { maxEntries: 10_000, maxAgeMs: 60_000 },
    ),
    {
      findAccount: (id) => store.accounts.roleById(id),
      timeoutMs: 1000,
      onUnavailable: (error) => logger.warn({ err: error }, 'account check skipped: store unavailable'),
      changes: accountChanges,
      maxAgeMs: options.accountMaxAgeMs,
    },
  );
  // Connecting happens in the background: a Redis that is down delays nothing (limits count in process).
  // ioredis is loaded only when configured: it is 7 MB of the resident set of a server that has no Redis.
  const redis = config.redis.url
    ? (await import('./shared-state/redis-connection.js')).createRedisConnection({
        url: config.redis.url,
        namespace: config.redis.keyPrefix,
        logger,
      })
    : undefined;
  if (redis && cache)
    shareInvalidations(cache, redis.bus, { onRemote: () => metrics.observeCacheInvalidation('remote') });
  const limits = createAbuseLimits(
    config.rateLimits,
    redis ? createRedisRateLimiterFactory(redis.client, config.redis.keyPrefix) : undefined,
  );
  const context = { store, tokens, limits };
  const toolRunner = createToolRunner({
    executor,
    context,
    defaultTimeoutMs: config.mcp.toolTimeoutMs,
    onToolCall: metrics.observeToolCall,
    confirmations,
    resultMaxChars: config.mcp.resultMaxChars,
  });
  const runTool = tracing ? tracing.traceToolRunner(toolRunner) : toolRunner;
  const resources = createResources({ executor, context, timeoutMs: config.mcp.toolTimeoutMs });
  const prompts = createPrompts(schema);
  // 2025-era sessions: in Redis with REDIS_URL (any replica serves them), else in this process.
  const state = createSharedState({
    caps: {
      maxSessions: config.mcp.maxSessions,
      maxPerUser: config.mcp.maxSessionsPerUser,
      maxPerAddress: config.mcp.maxSessionsPerAddress,
      idleMs: config.mcp.sessionIdleMs,
    },
    resumeWindowMs: config.mcp.resumeWindowMs,
    logger,
    redis,
  });
  const drain = createDrainGate();
  const app = createApp({
    config,
    logger,
    store,
    tokens,
    executor,
    verifier,
    mcp: {
      server: {
        catalogue,
        toolsVisibility: config.mcp.toolsVisibility,
        runTool,
        logger,
        confirmations,
        resources,
        prompts,
        limits,
      },
      state,
      oauthIssuer: config.oauth?.issuer,
    },
    oauthSecret: jwtSecret,
    metrics,
    limits,
    drain,
    redis,
    tracing,
  });

  // Bound slow clients: headers must arrive within 10 s and a whole request within 30 s. Node enforces
  // both only when it sweeps its connections, every 30 s by default, so a client trickling header lines
  // held its socket for 30 s whatever headersTimeout said: sweep every second instead.
  const server: Server = createServer(
    {
      headersTimeout: options.httpTimeouts?.headersMs ?? 10_000,
      requestTimeout: options.httpTimeouts?.requestMs ?? 30_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  answerClientErrors(server);
  try {
    await new Promise<void>((resolve, reject) => {
      // A busy port (EADDRINUSE) arrives as an 'error' event before any address exists.
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    catalogue.close();
    await state.close();
    await redis?.close();
    await accountChanges.close();
    await handle.close();
    await tracing?.shutdown();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(config.host)}:${port}`;
  logger.info({ url, port, host: config.host, database: handle.dialect }, 'listening');

  let closing: Promise<void> | undefined;
  // Sessions close only after the requests on them finished (in Redis they stay, for the other replicas).
  async function drainAndClose(): Promise<void> {
    drain.stopReadiness();
    catalogue.close();
    logger.info({ delayMs: config.shutdown.delayMs }, 'draining: not ready');
    if (config.shutdown.delayMs > 0) await new Promise((r) => setTimeout(r, config.shutdown.delayMs));
    const pending = drain.inFlight();
    const settled = await drain.settle(config.shutdown.graceMs);
    logger.info({ waitedFor: pending, settled, cut: drain.inFlight() }, 'draining: requests finished');
    await state.close();
    // Once the grace ran out, what is left is cut at once.
    await closeServer(
      server,
      settled ? (options.closeAfterDrain ?? CLOSE_AFTER_DRAIN) : { quietMs: 0, maxMs: 0 },
    );
    store.policy.dispose();
    await redis?.close();
    await accountChanges.close();
    await handle.close();
    // Last, so the spans of the requests that drained are sent.
    await tracing?.shutdown();
  }

  return {
    url,
    port,
    store,
    tokens,
    logger,
    close() {
      closing ??= drainAndClose();
      return closing;
    },
  };
}
