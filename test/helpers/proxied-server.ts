/**
 * The real server on PostgreSQL reached through the loopback proxy (test/helpers/tcp-proxy.ts), with the
 * SQL it runs observed: a test can freeze the database at an exact statement (stallAfter) and wait for
 * the abandoned work to end (rollbacks).
 */
import type { Env } from '../../src/config.js';
import { captureLogs } from './log-capture.js';
import { startTestServer, type TestServer } from './server.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const databaseUrl = process.env.TEST_DATABASE_URL;

export interface ProxiedServer {
  server: TestServer;
  proxy: TcpProxy;
  logs: ReturnType<typeof captureLogs>;
  /** Stall the proxy as soon as a statement matching `pattern` has completed (once). */
  stallAfter(pattern: RegExp): void;
  /** Whether the armed stall has happened. */
  stalled(): boolean;
  /** ROLLBACK statements completed so far. */
  rollbacks(): number;
  /** Whether /readyz answers 200 now. */
  ready(): Promise<boolean>;
  stop(): Promise<void>;
}

/** `logLevel` is what `logs` keeps (info unless told): 'debug' for the compiler's decisions, say. */
export async function startProxiedServer(env: Env, logLevel = 'info'): Promise<ProxiedServer> {
  const target = new URL(databaseUrl!);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(databaseUrl!);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const logs = captureLogs(logLevel);
  let armed: RegExp | undefined;
  let stalled = false;
  let rollbacks = 0;
  const server = await startTestServer('postgres', {
    logger: logs.logger,
    env: { DATABASE_URL: url.toString(), ...env },
    onQuery: (sql) => {
      if (/^rollback/i.test(sql)) rollbacks += 1;
      // kysely reports a statement once it has completed, before the caller sends the next one.
      if (armed?.test(sql)) {
        armed = undefined;
        stalled = true;
        proxy.stall();
      }
    },
  });
  return {
    server,
    proxy,
    logs,
    stallAfter(pattern) {
      stalled = false;
      armed = pattern;
    },
    stalled: () => stalled,
    rollbacks: () => rollbacks,
    ready: async () => (await fetch(`${server.url}/readyz`)).status === 200,
    async stop() {
      proxy.resume();
      proxy.up();
      await server.stop();
      await proxy.close();
    },
  };
}
