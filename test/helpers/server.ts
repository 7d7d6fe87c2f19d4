/**
 * Starts the real server on port 0 with a fresh database: SQLite in a temp folder, or (when
 * TEST_DATABASE_URL is set) a fresh PostgreSQL schema dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Env } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import { createGraphQLClient, type GraphQLClient } from './graphql-client.js';

export { classificationOf } from './graphql-client.js';

export type TestDialect = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when the environment names a server. */
export const dialects: TestDialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const TEST_ISSUER = 'moviedb-mcp';
export const TEST_AUDIENCE = 'moviedb-mcp';

export interface TestServer extends RunningServer, GraphQLClient {
  dialect: TestDialect;
  /** This server's own SQLite folder and PostgreSQL schema (a second replica can be pointed at them). */
  dataDir: string;
  schemaName: string;
  /** Runs SQL against the test database directly (for assertions on what was written). */
  count(table: string, where?: string): Promise<number>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  env?: Env;
  logger?: Logger;
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  accountMaxAgeMs?: number;
  httpTimeouts?: ServerOptions['httpTimeouts'];
  closeAfterDrain?: ServerOptions['closeAfterDrain'];
}

export async function startTestServer(
  dialect: TestDialect,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-test-'));
  const schemaName = `test_${randomBytes(6).toString('hex')}`;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (dialect === 'postgres' && !databaseUrl) throw new Error('TEST_DATABASE_URL is not set');
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: 'silent',
    DATABASE_POOL_SIZE: '5',
    // The suite sends thousands of requests from 127.0.0.1: limits stay on (their code runs in every
    // test) but far out of reach; the rate-limit tests set small ones.
    RATE_LIMIT_USER_OPERATIONS: '1000000',
    RATE_LIMIT_ANON_OPERATIONS: '1000000',
    RATE_LIMIT_USER_REQUESTS: '10000000',
    RATE_LIMIT_ANON_REQUESTS: '10000000',
    LOGIN_FAILURES_PER_ACCOUNT: '100000',
    LOGIN_FAILURES_PER_ADDRESS: '100000',
    REGISTRATIONS_PER_ADDRESS: '100000',
    // Every operation a test runs is the compiled one from its first run (the default waits for a second),
    // with the compile budget out of reach like the rate limits; the compile-abuse tests set the default.
    GRAPHQL_JIT: 'always',
    GRAPHQL_JIT_FIELDS_PER_MINUTE: '100000000',
    ...(dialect === 'postgres' ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schemaName } : {}),
    ...options.env,
  });
  const server = await startServer(config, {
    logger: options.logger,
    onQuery: options.onQuery,
    accountMaxAgeMs: options.accountMaxAgeMs,
    httpTimeouts: options.httpTimeouts,
    closeAfterDrain: options.closeAfterDrain,
  });
  return {
    ...server,
    dialect,
    dataDir,
    schemaName,
    ...createGraphQLClient(server.url),
    async count(table, where) {
      const { sql } = await import('kysely');
      const query = where
        ? sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${sql.raw(where)}`
        : sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`;
      const { rows } = await query.execute(server.store.handle.db);
      return Number(rows[0]?.n);
    },
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (dialect === 'postgres') {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists "${schemaName}" cascade`);
        await client.end();
      }
    },
  };
}
