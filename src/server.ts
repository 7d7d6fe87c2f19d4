/**
 * Wires the running server from a validated Config: database (migrated and seeded), tokens, schema,
 * executor, app; listens; and drains on close. main.ts and the tests both start the server through here.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Config } from './config.js';
import { createApp } from './app.js';
import { resolveJwtSecret } from './auth/jwt-secret.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createBearerVerifier } from './auth/bearer.js';
import { withVerificationCache } from './auth/verification-cache.js';
import { createExecutor } from './graphql/executor.js';
import { createMetrics } from './http/metrics.js';
import { createToolRunner } from './mcp/call-tool.js';
import { createCircuitBreaker } from './mcp/circuit-breaker.js';
import { SessionRegistry } from './mcp/sessions.js';
import { loadOperations } from './operations/load-operations.js';
import { buildSchema } from './graphql/schema.js';
import { chooseLogFormat, createLogger, type Logger } from './logger.js';
import { openDatabase } from './store/database.js';
import { createStore, type Store } from './store/index.js';

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  tokens: TokenService;
  logger: Logger;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), closes the database. */
  close(): Promise<void>;
}

const DRAIN_GRACE_MS = 10_000;

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
  const executor = createExecutor(schema, config.graphql, (error, reference) =>
    logger.error({ err: error, reference }, 'error outside execution'),
  );
  const operations = loadOperations(executor, config.operationsDir);
  const handle = await openDatabase({
    ...config.database,
    dataDir: config.dataDir,
    seedFile: config.seedFile,
    onQuery: options.onQuery,
    onConnectionError: (error) => logger.warn({ err: error }, 'database connection failed'),
  });
  const store = createStore(handle);
  const tokens = createTokenService({
    ...config.jwt,
    secret: resolveJwtSecret(config.jwt.secret, config.dataDir),
  });
  const verifier = withVerificationCache(
    createBearerVerifier(
      tokens,
      config.oauth && config.mcp.publicUrl
        ? { ...config.oauth, audience: `${config.mcp.publicUrl}/mcp` }
        : undefined,
    ),
    { maxEntries: 10_000, maxAgeMs: 60_000 },
  );
  const breaker = createCircuitBreaker({
    failureThreshold: config.mcp.circuitFailures,
    openMs: config.mcp.circuitOpenMs,
    onStateChange: (state) => logger.warn({ circuit: state }, 'store circuit changed state'),
  });
  const metrics = createMetrics();
  const runTool = createToolRunner({
    executor,
    context: { store, tokens },
    breaker,
    operations,
    defaultTimeoutMs: config.mcp.toolTimeoutMs,
    readRetries: config.mcp.readRetries,
    retryBaseDelayMs: 100,
    onToolCall: metrics.observeToolCall,
  });
  const sessions = new SessionRegistry({
    maxSessions: config.mcp.maxSessions,
    idleMs: config.mcp.sessionIdleMs,
    logger,
  });
  let draining = false;
  const app = createApp({
    config,
    logger,
    store,
    tokens,
    executor,
    verifier,
    mcp: { server: { operations, runTool, logger }, sessions, oauthIssuer: config.oauth?.issuer },
    metrics,
    isDraining: () => draining,
  });

  let server: Server;
  try {
    server = await new Promise((resolve, reject) => {
      // Express 5 calls this back with the error too (EADDRINUSE), before any address exists.
      const listening = app.listen(config.port, config.host, (error?: Error) =>
        error ? reject(error) : resolve(listening),
      );
    });
  } catch (error) {
    await sessions.closeAll();
    await handle.close();
    throw error;
  }
  // Bound slow clients: headers must arrive within 10 s and a whole request within 30 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, port, host: config.host, database: handle.dialect }, 'listening');

  return {
    url,
    port,
    store,
    tokens,
    logger,
    async close() {
      draining = true;
      // Sessions first: their SSE streams would otherwise hold connections open for the whole grace period.
      await sessions.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Connections still busy finish their request; any that outlive the grace period are cut.
      const grace = setTimeout(() => server.closeAllConnections(), DRAIN_GRACE_MS);
      const idleSweep = setInterval(() => server.closeIdleConnections(), 200);
      await closed;
      clearInterval(idleSweep);
      clearTimeout(grace);
      await handle.close();
    },
  };
}
