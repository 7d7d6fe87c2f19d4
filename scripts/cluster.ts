/**
 * `npm run cluster`: the docker-compose topology on this machine without Docker. Two replicas on
 * 127.0.0.1 behind nginx (deploy/nginx/moviedb.conf.template), on PostgreSQL and Redis: DATABASE_URL
 * (default the CI database, schema DATABASE_SCHEMA, default moviedb_cluster) and REDIS_URL (default
 * 127.0.0.1:6379, keys under REDIS_KEY_PREFIX, default moviedb-cluster). Every other setting (.env or the
 * environment) reaches both replicas. Prints the URLs, then runs until SIGINT or SIGTERM, which stop
 * everything it started, by pid.
 *
 *   npm run cluster [-- --port N]    N: the load balancer's port (default: a free one)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../src/config.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { loadEnvFile } from '../src/cli/load-env-file.js';
import {
  buildIfStale,
  findNginx,
  NGINX_INSTALL_HINT,
  redactUrl,
  startCluster,
  type Cluster,
} from './cluster/start-cluster.js';

const USAGE = 'usage: npm run cluster [-- --port N]   (N: the load balancer port; default a free one)';

function parsePort(args: string[]): number | undefined {
  if (args.length === 0) return 0;
  if (args.length === 2 && args[0] === '--port' && /^\d{1,5}$/.test(args[1]!) && Number(args[1]) < 65536) {
    return Number(args[1]);
  }
  return undefined;
}

/** The settings every replica gets: the environment (and .env), with the cluster's defaults beneath. */
function clusterEnv(): Record<string, string | undefined> {
  const env = { ...process.env };
  if (!env.DATABASE_URL && !env.DATABASE_HOST) env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';
  env.DATABASE_SCHEMA ||= 'moviedb_cluster';
  env.REDIS_URL ||= 'redis://127.0.0.1:6379';
  env.REDIS_KEY_PREFIX ||= 'moviedb-cluster';
  return env;
}

function describe(cluster: Cluster, env: Record<string, string | undefined>, workDir: string): string {
  const database = env.DATABASE_URL ? redactUrl(env.DATABASE_URL) : `${env.DATABASE_HOST} (in parts)`;
  return [
    `moviedb-mcp cluster: ${cluster.replicas.length} replicas behind nginx (round robin, no affinity)`,
    `  load balancer  ${cluster.url}   (/graphql, /mcp)   nginx pid ${cluster.nginx.pid}`,
    ...cluster.replicas.map((r) => `  ${r.name.padEnd(13)}  ${r.url}   pid ${r.pid}`),
    `  database       ${database}, schema ${env.DATABASE_SCHEMA}`,
    `  redis          ${redactUrl(env.REDIS_URL!)}, key prefix ${env.REDIS_KEY_PREFIX}`,
    `  logs           ${workDir} (removed on stop)`,
    `Ctrl+C (or kill -TERM ${process.pid}) stops everything.`,
  ].join('\n');
}

async function main(): Promise<number> {
  const port = parsePort(process.argv.slice(2));
  if (port === undefined) {
    console.error(USAGE);
    return EXIT.USAGE;
  }
  if (!findNginx()) {
    console.error(NGINX_INSTALL_HINT);
    return EXIT.UNAVAILABLE;
  }
  const envFile = loadEnvFile();
  if (envFile.warning) console.error(`warning: ${envFile.warning}`);
  buildIfStale();

  const env = clusterEnv();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'moviedb-cluster-'));
  // Handlers go in before anything starts: a signal while starting still stops what was started.
  let signalled: string | undefined;
  let onSignal: (signal: string) => void = (signal) => (signalled ??= signal);
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  let cluster: Cluster;
  try {
    cluster = await startCluster({ env, port, workDir });
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    console.error(`the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof ConfigError ? EXIT.CONFIG : EXIT.UNAVAILABLE;
  }
  if (!signalled) console.log(describe(cluster, env, workDir));

  let stopping = false;
  for (const replica of cluster.replicas) {
    void replica.exited.then((how) => {
      if (!stopping) console.log(`${replica.name} (pid ${replica.pid}) exited (${how}); the others serve on`);
    });
  }
  return new Promise((resolve) => {
    const stop = (why: string, code: number = EXIT.OK) => {
      if (stopping) return;
      stopping = true;
      console.log(`${why}: stopping nginx and draining the replicas…`);
      void cluster.stop().then(() => {
        rmSync(workDir, { recursive: true, force: true });
        console.log('stopped');
        resolve(code);
      });
    };
    onSignal = stop;
    if (signalled) stop(signalled);
    void cluster.nginx.exited.then((how) => {
      if (stopping) return;
      console.error(`nginx exited (${how}); stopping the cluster`);
      stop('nginx exited', EXIT.FAILURE);
    });
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('cluster failed:', error instanceof Error ? error.message : error);
    process.exit(EXIT.SOFTWARE);
  },
);
