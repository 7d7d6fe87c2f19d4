/**
 * Starts the docker-compose topology on this machine without Docker: app replicas (`node dist/main.js`)
 * on 127.0.0.1 and free ports, against the PostgreSQL and Redis their settings name, behind nginx from
 * the distribution's package running as the current user with deploy/nginx/moviedb.conf.template. Used by
 * `npm run cluster` (scripts/cluster.ts) and by the cluster integration test (test/helpers/cluster.ts).
 *
 * Every process started here is a child of this one, in a process group of its own (so a Ctrl+C meant for
 * the caller does not hit them half-way through their shutdown), and is only ever signalled by its pid.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { PROJECT_ROOT, readTemplate, renderMainConfig, renderTemplate } from './render-nginx-config.js';

/** Where Debian's nginx packages (nginx-light, nginx) install the binary. */
const DEBIAN_NGINX = '/usr/sbin/nginx';
export const NGINX_INSTALL_HINT =
  'nginx is not installed: apt-get install -y nginx-light (or nginx), then run this again';

const READY_TIMEOUT_MS = 60_000;
/** How long stop() lets replicas drain (SHUTDOWN_GRACE_MS is 10 s by default) before SIGKILL. */
const STOP_TIMEOUT_MS = 20_000;

export interface ClusterOptions {
  /**
   * The app's settings for every replica (DATABASE_URL, REDIS_URL, MCP_*, RATE_LIMIT_*, …). The cluster
   * sets HOST, PORT and TRUST_PROXY (exactly one proxy: the load balancer) itself.
   */
  env: Record<string, string | undefined>;
  /** Settings that differ per replica, by index (a test routes a replica's database through a proxy). */
  replicaEnv?: (index: number) => Record<string, string>;
  /** The load balancer's port; 0 (the default) picks a free one. */
  port?: number;
  /** An existing folder for nginx's prefix, its generated configuration and every log. */
  workDir: string;
}

/** As in docker-compose.yml (app-1, app-2). */
export const REPLICAS = 2;

interface ClusterProcess {
  name: string;
  pid: number;
  /** Stdout and stderr of the process. */
  log: string;
  /** Settles when the process has exited: its exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
  alive(): boolean;
  /** Sends a signal to this process (by pid) if it still runs. */
  signal(signal: NodeJS.Signals): void;
}

export interface Replica extends ClusterProcess {
  url: string;
  port: number;
}

export interface Cluster {
  /** The load balancer: what clients use. */
  url: string;
  replicas: Replica[];
  nginx: ClusterProcess & { accessLog: string };
  /** Stops nginx and drains the replicas (SIGTERM), then SIGKILLs whatever is left after 20 s. */
  stop(): Promise<void>;
}

/** The nginx binary: Debian's, else one on PATH; undefined when there is none. */
export function findNginx(): string | undefined {
  const candidates = [
    DEBIAN_NGINX,
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, 'nginx')),
  ];
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Compiles dist/ when it is missing or older than src/ (the same step `npm start` runs). */
export function buildIfStale(): void {
  const result = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('building dist/ failed (see the compiler output above)');
}

/** A TCP port the OS reports free on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

function track(name: string, child: ChildProcess, log: string): ClusterProcess {
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} could not be started`);
  let running = true;
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve(code ?? signal ?? 'SIGKILL');
    });
    child.once('error', () => {
      running = false;
      resolve(1);
    });
  });
  return {
    name,
    pid,
    log,
    exited,
    alive: () => running,
    signal(signal) {
      if (!running) return;
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone between the check and the signal.
      }
    },
  };
}

/** Starts a process in its own group with stdout and stderr going to `log`. */
function launch(name: string, command: string, args: string[], log: string, env?: NodeJS.ProcessEnv) {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', fd, fd], detached: true });
    return track(name, child, log);
  } finally {
    closeSync(fd);
  }
}

/** Polls `url` until it answers 200; fails with the log's tail if `process` exits first or time runs out. */
async function untilAnswering(url: string, child: ClusterProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!child.alive()) {
      throw new Error(`${child.name} exited (${await child.exited}) before it answered:\n${tail(child.log)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(
    `${child.name} did not answer ${url} within ${READY_TIMEOUT_MS / 1000} s:\n${tail(child.log)}`,
  );
}

async function stopAll(processes: ClusterProcess[]): Promise<void> {
  for (const p of processes) p.signal('SIGTERM');
  const all = Promise.all(processes.map((p) => p.exited));
  const timer = sleep(STOP_TIMEOUT_MS).then(() => 'timeout' as const);
  if ((await Promise.race([all, timer])) === 'timeout') for (const p of processes) p.signal('SIGKILL');
  await all;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const nginxBinary = findNginx();
  if (!nginxBinary) throw new Error(NGINX_INSTALL_HINT);
  // Requests reach a replica through exactly one proxy: its X-Forwarded-For entry is the client's address.
  const fixed = { HOST: '127.0.0.1', TRUST_PROXY: '1' };
  // An invalid setting stops here, with the app's own message, before anything is started.
  const config = loadConfig({ ...options.env, ...fixed, PORT: '0' });

  const started: ClusterProcess[] = [];
  // A last resort should the caller die without stop(): nothing outlives it.
  const killAll = () => started.forEach((p) => p.signal('SIGKILL'));
  process.once('exit', killAll);
  try {
    const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    const replicas: Replica[] = [];
    for (const [index, port] of ports.entries()) {
      const name = `app-${index + 1}`;
      const env = { ...options.env, ...options.replicaEnv?.(index), ...fixed, PORT: String(port) };
      const replica = launch(
        name,
        process.execPath,
        ['dist/main.js'],
        path.join(options.workDir, `${name}.log`),
        env,
      );
      started.push(replica);
      replicas.push({ ...replica, port, url: `http://127.0.0.1:${port}` });
    }
    // Started together on purpose: migrations and seeding are safe when replicas race for them.
    await Promise.all(replicas.map((replica) => untilAnswering(`${replica.url}/readyz`, replica)));

    const prefix = path.join(options.workDir, 'nginx');
    mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
    const port = options.port || (await freePort());
    const accessLog = path.join(prefix, 'access.log');
    writeFileSync(
      path.join(prefix, 'moviedb.conf'),
      renderTemplate(readTemplate(), {
        LB_LISTEN: `127.0.0.1:${port}`,
        LB_UPSTREAM_SERVERS: replicas.map((r) => `server 127.0.0.1:${r.port};`).join(' '),
        LB_BODY_LIMIT_BYTES: String(config.body.limitBytes),
        LB_ACCESS_LOG: accessLog,
      }),
    );
    const conf = path.join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      renderMainConfig({
        include: 'moviedb.conf',
        user: process.getuid?.() === 0 ? os.userInfo().username : undefined,
      }),
    );
    const errorLog = path.join(prefix, 'error.log');
    const nginx = launch(
      'nginx',
      nginxBinary,
      [
        '-p',
        `${prefix}/`,
        '-c',
        conf,
        '-e',
        errorLog,
        '-g',
        `daemon off; pid ${path.join(prefix, 'nginx.pid')};`,
      ],
      errorLog,
    );
    started.push(nginx);
    const url = `http://127.0.0.1:${port}`;
    await untilAnswering(`${url}/healthz`, nginx);

    let stopping: Promise<void> | undefined;
    return {
      url,
      replicas,
      nginx: { ...nginx, accessLog },
      stop() {
        stopping ??= stopAll(started).finally(() => process.off('exit', killAll));
        return stopping;
      },
    };
  } catch (error) {
    await stopAll(started);
    process.off('exit', killAll);
    throw error;
  }
}

/** A database URL fit to print: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
