/**
 * npm run bench: loopback throughput, latency and retained memory of the MCP gateway beside a bare
 * Express baseline, all in one run. Servers run in their own processes (pinned to core 0 when taskset
 * exists) and the load generator here (core 1), so the figures are ratios that hold across machines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const IDLE_SESSIONS = 500;
const pin = existsSync('/usr/bin/taskset') ? ['taskset', '-c', '0'] : [];

interface Proc {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** Resolves with the next heap report the probe prints. */
  nextHeap(): Promise<number>;
}

/**
 * Starts a process and reads its stdout continuously: a server whose log pipe is not drained would
 * block on writes (or buffer them in memory) and the benchmark would measure that instead.
 */
async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyLine: (line: string) => number | undefined,
): Promise<Proc> {
  const [command, ...rest] = [...pin, ...args];
  const child = spawn(command!, rest, { env: { ...process.env, ...env } });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  const heapWaiters: ((heap: number) => void)[] = [];
  return new Promise((resolve, reject) => {
    let ready = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"heapUsed"')) return heapWaiters.shift()?.(JSON.parse(line).heapUsed as number);
      const port = ready ? undefined : readyLine(line);
      if (port) {
        ready = true;
        resolve({ child, port, nextHeap: () => new Promise((r) => heapWaiters.push(r)) });
      }
    });
    child.on('exit', () => !ready && reject(new Error(`${args.join(' ')} exited before it was ready`)));
  });
}

/** Heap in use after GC in the server process, through bench/heap-probe.cjs. */
async function heapAfterGc(proc: Proc): Promise<number> {
  const heap = proc.nextHeap();
  proc.child.kill('SIGUSR2');
  return heap;
}

async function startApp(mode: 'sessions' | 'stateless', dataDir: string): Promise<Proc> {
  return startProcess(
    ['node', '--expose-gc', '--require', './bench/heap-probe.cjs', 'dist/main.js'],
    {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      MCP_MODE: mode,
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
      MCP_MAX_SESSIONS: '5000',
      // The idle-session figure opens 500 sessions as one user, past the default per-user cap.
      MCP_MAX_SESSIONS_PER_USER: '5000',
      // The load is one user far beyond any per-principal limit: the figures measure serving, not refusing.
      RATE_LIMITS: 'off',
    },
    (line) => (line.includes('"msg":"listening"') ? (JSON.parse(line).port as number) : undefined),
  );
}

interface Result {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  heapPerCall?: number;
}

async function load(name: string, options: autocannon.Options): Promise<Result> {
  const r = await autocannon({ ...options, duration: SECONDS, connections: CONNECTIONS });
  return {
    name,
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
  };
}

async function measure(proc: Proc | undefined, name: string, options: autocannon.Options): Promise<Result> {
  // A warm-up first, so JIT, caches and pools are settled before the heap baseline and the measured run.
  await autocannon({ ...options, duration: 2, connections: CONNECTIONS });
  const before = proc ? await heapAfterGc(proc) : 0;
  const result = await load(name, options);
  if (proc) result.heapPerCall = ((await heapAfterGc(proc)) - before) / result.requests;
  return result;
}

async function token(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { login(input: { username: "user", password: "user123" }) { token } }',
    }),
  });
  return ((await response.json()) as { data: { login: { token: string } } }).data.login.token;
}

const MCP_ACCEPT = 'application/json, text/event-stream';
const initialize = (port: number, bearer: string) =>
  fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, authorization: `Bearer ${bearer}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });

const callParams = { name: 'recommendMoviesForMood', arguments: { mood: 'HORROR' } };
/** The per-request envelope a 2026-07-28 client sends instead of a session. */
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
let nextId = 0;
/**
 * A tools/call with a JSON-RPC id of its own on every request (ids repeated on one session would be
 * requests the server cannot tell apart). autocannon's idReplacement keeps the first Content-Length,
 * so the body is built per request here instead.
 */
function toolCalls(era: '2025' | '2026'): Pick<autocannon.Options, 'requests'> {
  const params = era === '2026' ? { ...callParams, _meta: ENVELOPE_2026 } : callParams;
  return {
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'tools/call', params }),
        }),
      },
    ],
  };
}
const graphqlBody = JSON.stringify({
  query:
    'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id title releaseYear genre rating runtime directors { name } } }',
  variables: { mood: 'HORROR' },
});

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-'));
  const procs: Proc[] = [];
  try {
    const bare = await startProcess(['node', 'bench/bare-server.mjs'], {}, (line) =>
      line.includes('listening') ? (JSON.parse(line).listening as number) : undefined,
    );
    procs.push(bare);
    const sessions = await startApp('sessions', path.join(dataDir, 'sessions'));
    procs.push(sessions);
    const stateless = await startApp('stateless', path.join(dataDir, 'stateless'));
    procs.push(stateless);
    const bearer = await token(sessions.port);
    const bearerStateless = await token(stateless.port);

    const results: Result[] = [];
    results.push(
      await measure(undefined, 'bare Express GET (baseline)', { url: `http://127.0.0.1:${bare.port}/` }),
    );
    results.push(
      await measure(sessions, 'GraphQL POST recommendMoviesForMood', {
        url: `http://127.0.0.1:${sessions.port}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: graphqlBody,
      }),
    );
    const init = await initialize(sessions.port, bearer);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    results.push(
      await measure(sessions, 'MCP tools/call, one session (SSE)', {
        url: `http://127.0.0.1:${sessions.port}/mcp`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          authorization: `Bearer ${bearer}`,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        ...toolCalls('2025'),
      }),
    );
    results.push(
      await measure(sessions, 'MCP tools/call, 2026-07-28 client (JSON)', {
        url: `http://127.0.0.1:${sessions.port}/mcp`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          authorization: `Bearer ${bearer}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'recommendMoviesForMood',
        },
        ...toolCalls('2026'),
      }),
    );
    results.push(
      await measure(stateless, 'MCP tools/call, stateless (JSON)', {
        url: `http://127.0.0.1:${stateless.port}/mcp`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          authorization: `Bearer ${bearerStateless}`,
          'mcp-protocol-version': '2025-11-25',
        },
        ...toolCalls('2025'),
      }),
    );

    // What an idle, never-deleted session costs until eviction.
    const before = await heapAfterGc(sessions);
    for (let i = 0; i < IDLE_SESSIONS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => (await initialize(sessions.port, bearer)).text()),
      );
    }
    const perIdleSession = ((await heapAfterGc(sessions)) - before) / IDLE_SESSIONS;

    const baseline = results[0]!.rps;
    const rows = results.map((r) => ({
      case: r.name,
      'req/s': Math.round(r.rps),
      'ratio to bare': (r.rps / baseline).toFixed(2),
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      errors: r.errors,
      'heap kept per call (bytes, after GC)': r.heapPerCall === undefined ? '' : r.heapPerCall.toFixed(1),
    }));
    console.log(
      `\nmoviedb-mcp benchmark: ${CONNECTIONS} connections, ${SECONDS} s per case, loopback, node ${process.version}`,
    );
    console.table(rows);
    console.log(
      `idle session cost: ${(perIdleSession / 1024).toFixed(1)} KiB each (${IDLE_SESSIONS} sessions, heap after GC)`,
    );
    if (results.some((r) => r.errors > 0)) {
      console.error('Some requests failed; the figures above are not valid.');
      process.exitCode = 1;
    }
  } finally {
    for (const proc of procs) proc.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
