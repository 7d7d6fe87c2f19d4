/**
 * Wires the running server from a validated Config: database (migrated and seeded), tokens, schema,
 * executor, app; listens; and drains on close. main.ts and the tests both start the server through here.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { urlHost, type Config } from './config.js';
import { createApp } from './app.js';
import { resolveJwtSecret } from './auth/jwt-secret.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createBearerVerifier } from './auth/bearer.js';
import { withVerificationCache } from './auth/verification-cache.js';
import { withAccountCheck } from './auth/account-check.js';
import { createExecutor } from './graphql/executor.js';
import { createResultCache } from './graphql/result-cache.js';
import { answerClientErrors } from './http/answer-client-errors.js';
import { createDrainGate } from './http/drain-gate.js';
import { createMetrics } from './http/metrics.js';
import { createToolRunner } from './mcp/call-tool.js';
import { SessionRegistry } from './mcp/sessions.js';
import { loadOperations } from './operations/load-operations.js';
import { buildSchema } from './graphql/schema.js';
import { chooseLogFormat, createLogger, type Logger } from './logger.js';
import { createAbuseLimits } from './limits/abuse-limits.js';
import { createRedisConnection } from './limits/redis-connection.js';
import { createRedisRateLimiterFactory } from './limits/redis-rate-limiter-factory.js';
import { shareInvalidations } from './limits/shared-invalidation.js';
import { openDatabase } from './store/database.js';
import { createStore, type Store } from './store/index.js';

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
  onQuery?: (sql: string) => void;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger =
    options.logger ??
    createLogger(
      config.logLevel,
      undefined,
      chooseLogFormat(config.logFormat, process.stdout.isTTY === true),
    );
  // Everything that can be validated without the database is, before it is opened.
  const schema = buildSchema();
  const metrics = createMetrics();
  const cache =
    config.resultCache &&
    createResultCache(schema, { ...config.resultCache, onLookup: metrics.observeCacheLookup });
  cache?.onInvalidate(() => metrics.observeCacheInvalidation('local'));
  const executor = createExecutor(
    schema,
    config.graphql,
    (error, reference) => logger.error({ err: error, reference }, 'error outside execution'),
    cache,
  );
  const operations = loadOperations(executor, config.operationsDir);
  const handle = await openDatabase({
    ...config.database,
    statementTimeoutMs: config.resilience.statementTimeoutMs,
    dataDir: config.dataDir,
    seedFile: config.seedFile,
    onQuery: options.onQuery,
    onConnectionError: (error) => logger.warn({ err: error }, 'database connection failed'),
  });
  const store = createStore(handle, {
    defaultTimeoutMs: config.resilience.graphqlTimeoutMs,
    failureThreshold: config.resilience.circuitFailures,
    probeIntervalMs: config.resilience.circuitProbeMs,
    readRetries: config.resilience.readRetries,
    onStateChange: (state) => logger.warn({ circuit: state }, 'store circuit changed state'),
  });
  const tokens = createTokenService({
    ...config.jwt,
    secret: resolveJwtSecret(config.jwt.secret, config.dataDir),
  });
  // Signatures are remembered for a minute; whether the account still exists is asked on every request.
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
    },
  );
  // Connecting happens in the background: a Redis that is down delays nothing (limits count in process).
  const redis = config.redis.url ? createRedisConnection(config.redis.url, logger) : undefined;
  const sharedInvalidation =
    redis && cache
      ? shareInvalidations(cache, redis, {
          keyPrefix: config.redis.keyPrefix,
          logger,
          onRemote: () => metrics.observeCacheInvalidation('remote'),
        })
      : undefined;
  const limits = createAbuseLimits(
    config.rateLimits,
    redis ? createRedisRateLimiterFactory(redis.client, config.redis.keyPrefix) : undefined,
  );
  const runTool = createToolRunner({
    executor,
    context: { store, tokens, limits },
    operations,
    defaultTimeoutMs: config.mcp.toolTimeoutMs,
    onToolCall: metrics.observeToolCall,
  });
  const sessions = new SessionRegistry({
    maxSessions: config.mcp.maxSessions,
    maxPerUser: config.mcp.maxSessionsPerUser,
    maxPerAddress: config.mcp.maxSessionsPerAddress,
    idleMs: config.mcp.sessionIdleMs,
    logger,
  });
  const drain = createDrainGate();
  const app = createApp({
    config,
    logger,
    store,
    tokens,
    executor,
    verifier,
    mcp: { server: { operations, runTool, logger }, sessions, oauthIssuer: config.oauth?.issuer },
    metrics,
    limits,
    drain,
    redis,
  });

  // Bound slow clients: headers must arrive within 10 s and a whole request within 30 s. Node enforces
  // both only when it sweeps its connections, every 30 s by default, so a client trickling header lines
  // held its socket for 30 s whatever headersTimeout said: sweep every second instead.
  const server: Server = createServer(
    {
      headersTimeout: 10_000,
      requestTimeout: 30_000,
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
    await sessions.closeAll();
    await sharedInvalidation?.close();
    await redis?.close();
    await handle.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(config.host)}:${port}`;
  logger.info({ url, port, host: config.host, database: handle.dialect }, 'listening');

  let closing: Promise<void> | undefined;
  // Sessions close only after the requests on them finished: closing them first reset in-flight calls.
  async function drainAndClose(): Promise<void> {
    drain.stopReadiness();
    logger.info({ delayMs: config.shutdown.delayMs }, 'draining: not ready');
    if (config.shutdown.delayMs > 0) await new Promise((r) => setTimeout(r, config.shutdown.delayMs));
    const pending = drain.inFlight();
    const settled = await drain.settle(config.shutdown.graceMs);
    logger.info({ waitedFor: pending, settled, cut: drain.inFlight() }, 'draining: requests finished');
    await sessions.closeAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    store.policy.dispose();
    await sharedInvalidation?.close();
    await redis?.close();
    await handle.close();
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
