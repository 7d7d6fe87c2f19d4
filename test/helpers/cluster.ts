/**
 * The topology of `npm run cluster` for tests, started by the same code (scripts/cluster/start-cluster.ts):
 * two replicas (`node dist/main.js`, separate processes a test can SIGKILL) behind nginx, on a fresh
 * PostgreSQL schema and a fresh Redis key prefix, both removed by stop(). Each replica reaches PostgreSQL
 * through a TCP proxy of its own, so a test can hold one replica's queries (and learn which replica runs a
 * call). Needs nginx, TEST_DATABASE_URL and a Redis (TEST_REDIS_URL); `clusterPrerequisites` says what is
 * missing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  buildIfStale,
  findNginx,
  NGINX_INSTALL_HINT,
  REPLICAS,
  startCluster,
  type Cluster,
  type Replica,
} from '../../scripts/cluster/start-cluster.js';
import type { Env } from '../../src/config.js';
import { createGraphQLClient, type GraphQLClient } from './graphql-client.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from './redis.js';
import { TEST_JWT_SECRET } from './server.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

/** What the cluster test needs and this machine lacks (empty: it can run). */
export async function clusterPrerequisites(): Promise<string[]> {
  const missing: string[] = [];
  if (!findNginx()) missing.push(NGINX_INSTALL_HINT);
  if (!databaseUrl) missing.push('TEST_DATABASE_URL is not set (a PostgreSQL server)');
  if (!(await redisAvailable())) missing.push(`no Redis answers at ${REDIS_URL} (TEST_REDIS_URL)`);
  return missing;
}

/** One line of the load balancer's access log (deploy/nginx/moviedb.conf.template, log_format moviedb_lb). */
interface AccessLogLine {
  method: string;
  path: string;
  status: number;
  /** The replica that answered last (after any retry on another). */
  replica: string | undefined;
  /** The request id the replica used (the client's X-Request-Id, else its own). */
  requestId: string | undefined;
}

export interface TestCluster extends GraphQLClient {
  url: string;
  replicas: Replica[];
  /** Each replica's way to PostgreSQL, by replica index. */
  databaseProxies: TcpProxy[];
  /** Sum of a replica's own Prometheus samples named `name` whose labels include `labels`. */
  metric(replica: Replica, name: string, labels?: Record<string, string>): Promise<number>;
  /** Runs SQL in the cluster's schema. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  accessLog(): AccessLogLine[];
  stop(): Promise<void>;
}

/** `env`: settings for both replicas on top of the test defaults. */
export async function startTestCluster(env: Env = {}): Promise<TestCluster> {
  buildIfStale();
  const schema = `cluster_${randomBytes(6).toString('hex')}`;
  const keyPrefix = runPrefix();
  const workDir = mkdtempSync(path.join(tmpdir(), 'moviedb-cluster-test-'));
  const target = new URL(databaseUrl!);
  const databaseProxies = await Promise.all(
    Array.from({ length: REPLICAS }, () => startTcpProxy(target.hostname, Number(target.port || 5432))),
  );
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: `-c search_path=${schema}` });
  let cluster: Cluster | undefined;

  async function cleanUp(): Promise<void> {
    await cluster?.stop();
    await Promise.all(databaseProxies.map((proxy) => proxy.close()));
    await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
    await dropKeys(keyPrefix);
    rmSync(workDir, { recursive: true, force: true });
  }

  try {
    cluster = await startCluster({
      workDir,
      // Only what a replica needs from this process's environment (not the test runner's own variables).
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        DATABASE_SCHEMA: schema,
        REDIS_URL,
        REDIS_KEY_PREFIX: keyPrefix,
        // The whole test comes from 127.0.0.1: limits stay on (the shared one is under test) but only
        // what a test sets is within reach.
        RATE_LIMIT_ANON_OPERATIONS: '1000000',
        RATE_LIMIT_USER_REQUESTS: '10000000',
        RATE_LIMIT_ANON_REQUESTS: '10000000',
        REGISTRATIONS_PER_ADDRESS: '100000',
        LOGIN_FAILURES_PER_ADDRESS: '100000',
        SHUTDOWN_GRACE_MS: '2000',
        ...env,
      },
      replicaEnv: (index) => {
        const viaProxy = new URL(databaseUrl!);
        viaProxy.hostname = '127.0.0.1';
        viaProxy.port = String(databaseProxies[index]!.port);
        return { DATABASE_URL: viaProxy.toString() };
      },
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const { url, replicas, nginx } = cluster;
  const byAddress = new Map(replicas.map((replica) => [`127.0.0.1:${replica.port}`, replica.name]));

  return {
    url,
    replicas,
    databaseProxies,
    ...createGraphQLClient(url),
    async metric(replica, name, labels = {}) {
      const text = await (await fetch(`${replica.url}/metrics`)).text();
      let sum = 0;
      for (const line of text.split('\n')) {
        const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const has = Object.entries(labels).every(([key, value]) => match[2]?.includes(`${key}="${value}"`));
        if (has) sum += Number(match[3]);
      }
      return sum;
    },
    async query(sql, params) {
      return (await pool.query(sql, params)).rows;
    },
    accessLog() {
      return readFileSync(nginx.accessLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const request = /"(\w+) (\S+) HTTP\/[\d.]+" (\d+)/.exec(line);
          // After a retry $upstream_addr lists every replica tried; the last one answered.
          const upstream = /upstream=(\S+(?:, \S+)*)/.exec(line)?.[1]?.split(', ').at(-1);
          return {
            method: request?.[1] ?? '',
            path: request?.[2] ?? '',
            status: Number(request?.[3]),
            replica: upstream ? byAddress.get(upstream) : undefined,
            requestId: /request_id=(\S+)/.exec(line)?.[1]?.replace(/^-$/, '') || undefined,
          };
        });
    },
    stop: cleanUp,
  };
}
