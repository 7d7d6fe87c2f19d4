/** The servers `npm run bench` loads: the app (dist/main.js) in either MCP mode, and the bare baseline. */
import { startProcess, type Proc } from './start-process.js';

export const SERVER_ENV = {
  PORT: '0',
  LOG_LEVEL: 'info',
  NODE_ENV: 'production',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
  MCP_MAX_SESSIONS: '5000',
  // The idle-session figure opens 500 sessions as one user, past the default per-user cap.
  MCP_MAX_SESSIONS_PER_USER: '5000',
  // The load is one user far beyond any per-principal limit: the figures measure serving, not refusing.
  RATE_LIMITS: 'off',
};

/** `nodeFlags`: more for Node, before the script (npm run bench:profile loads its profiler so). */
export async function startApp(
  mode: 'sessions' | 'stateless',
  store: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<Proc> {
  return startProcess(
    ['node', '--expose-gc', '--import', './bench/heap-probe.mjs', ...nodeFlags, 'dist/main.js'],
    { ...SERVER_ENV, MCP_MODE: mode, ...store },
    (line) => (line.includes('"msg":"listening"') ? (JSON.parse(line).port as number) : undefined),
  );
}

/** The baseline: a bare Express app (bench/bare-server.mjs) answering GET / with no work. */
export async function startBareServer(): Promise<Proc> {
  return startProcess(
    ['node', '--expose-gc', '--import', './bench/heap-probe.mjs', 'bench/bare-server.mjs'],
    {},
    (line) => (line.includes('listening') ? (JSON.parse(line).listening as number) : undefined),
  );
}
