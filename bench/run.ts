/**
 * npm run bench: loopback throughput, latency, server CPU and memory of /graphql and the MCP gateway
 * beside a bare Express baseline, on SQLite and then (when BENCH_DATABASE_URL is set) on PostgreSQL, all
 * in one run, with a table of both stores side by side at the end. Servers run in their own processes (pinned to
 * core 0 when taskset exists) and the load generator here (core 1). The machine is shared and noisy, so
 * every case runs in several rounds, each round measuring the baseline first: a ratio is taken within
 * its round, and the table gives the median ratio with the spread (lowest to highest) of the rounds.
 *
 * Settings (environment): BENCH_SECONDS (5) per case and round, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
 * BENCH_LATENCY_SECONDS (5) for the one-connection latency runs, BENCH_DATABASE_URL to run every case
 * on PostgreSQL too (a fresh schema per server, dropped afterwards), BENCH_STORES (sqlite,postgres) to
 * run one store only, BENCH_CATALOGUE=large to
 * serve the big catalogue instead of the seed one (seeded once and kept: bench/large-catalogue.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { watchCpuWait } from './cpu-wait.js';
import { prepareLargeCatalogue } from './large-catalogue.js';
import { judgeTargets, type Measured } from './targets.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 5);
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
if (STORES.some((store) => store !== 'sqlite' && store !== 'postgres'))
  throw new Error('BENCH_STORES: sqlite, postgres or both');
const CATALOGUE = process.env.BENCH_CATALOGUE ?? 'seed';
if (CATALOGUE !== 'seed' && CATALOGUE !== 'large') throw new Error('BENCH_CATALOGUE: seed or large');
const IDLE_SESSIONS = 500;
const pin = existsSync('/usr/bin/taskset') ? ['taskset', '-c', '0'] : [];

/** What bench/heap-probe.mjs reports: heap after GC and CPU so far; GC and loop stalls since the last report. */
interface Probe {
  heapUsed: number;
  /** Resident set, bytes. */
  rss: number;
  cpuMicros: number;
  gcCount: number;
  gcMaxMs: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

interface Proc {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** Resolves with the next heap and CPU report the probe prints. */
  nextProbe(): Promise<Probe>;
  /** While set, receives the `ms` of every access line the server writes (its own view of latency). */
  onAccess?: (ms: number) => void;
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
  const probeWaiters: ((probe: Probe) => void)[] = [];
  return new Promise((resolve, reject) => {
    let proc: Proc | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"heapUsed"')) return probeWaiters.shift()?.(JSON.parse(line) as Probe);
      if (proc?.onAccess && line.includes('"msg":"request"')) return proc.onAccess(JSON.parse(line).ms);
      const port = proc ? undefined : readyLine(line);
      if (port) {
        proc = { child, port, nextProbe: () => new Promise((r) => probeWaiters.push(r)) };
        resolve(proc);
      }
    });
    child.on('exit', () => !proc && reject(new Error(`${args.join(' ')} exited before it was ready`)));
  });
}

/** Heap in use after GC, and CPU used so far, in the server process (bench/heap-probe.mjs). */
async function probe(proc: Proc): Promise<Probe> {
  const report = proc.nextProbe();
  proc.child.kill('SIGUSR2');
  return report;
}

const schemas: string[] = [];

const SERVER_ENV = {
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

/** The store of a server: the given one (the large catalogue), else a fresh one of its own. */
function freshStore(dataDir: string, url: string | undefined): Record<string, string> {
  if (!url) return { DATA_DIR: dataDir };
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  return { DATABASE_URL: url, DATABASE_SCHEMA: schema };
}

async function startApp(mode: 'sessions' | 'stateless', store: Record<string, string>): Promise<Proc> {
  return startProcess(
    ['node', '--expose-gc', '--import', './bench/heap-probe.mjs', 'dist/main.js'],
    { ...SERVER_ENV, MCP_MODE: mode, ...store },
    (line) => (line.includes('"msg":"listening"') ? (JSON.parse(line).port as number) : undefined),
  );
}

async function dropSchemas(url: string | undefined): Promise<void> {
  if (!url || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const schema of schemas.splice(0)) await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}

interface Case {
  name: string;
  /** The server loaded. */
  proc: Proc;
  options: autocannon.Options;
  /** Whether an answer is a real result (checked on every answer; a mismatch counts as an error). */
  isResult?: (body: string) => boolean;
  /** The target ratio to the baseline, if there is one. */
  target?: number;
  /** Measure latency at one connection too. */
  latency?: boolean;
}

interface Round {
  rps: number;
  /** Client-side latency, ms. */
  p50: number;
  p99: number;
  /** Server-side latency from its access lines, ms (NaN for the baseline, which writes none). */
  serverP50: number;
  serverP99: number;
  /** Until every connection had its first answer, ms (NaN: some never had one). */
  rampMs: number;
  /** The client-side p99 of every answer, the ramp's included. */
  p99WithRamp: number;
  /** The longest time in the steady state with no answer on any connection, ms. */
  silenceMs: number;
  errors: number[];
  heapPerCall: number;
  cpuMicrosPerCall: number;
  /** The server's GC pauses and event-loop stalls during the run. */
  probe: Probe;
  /** Shares of the run the server's event loop and the load generator waited for a CPU (0-1). */
  serverCpuWait: number;
  clientCpuWait: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const percentile = (values: number[], p: number) => {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** The first answer of each case that was not a result, printed once at the end. */
const mismatched = new Map<string, string>();

/**
 * One autocannon run, with every response's latency in ms as measured (autocannon's own histogram keeps
 * whole milliseconds, too coarse for sub-millisecond targets), and the server's view from its access lines.
 *
 * Latency is taken in the steady state, once every connection has had its first answer. Each run opens
 * its connections afresh, and a saturated Node server takes new connections from the kernel's accept
 * queue slowly (measured: 44 of 50 still queued after a second, a bare Express app with 2 ms of work per
 * request the same): the first answers of the last connections wait seconds and would be the p99 of any
 * server busy enough. That ramp is reported apart (`rampMs`: until every connection was answered).
 */
async function run(c: Case, seconds: number, connections: number) {
  const verifyBody = (body: unknown) => {
    const ok = c.isResult!(String(body));
    if (!ok && !mismatched.has(c.name)) mismatched.set(c.name, String(body).slice(0, 300));
    return ok;
  };
  const all: number[] = [];
  const steady: number[] = [];
  const serverMs: number[] = [];
  const answered = new Set<unknown>();
  const started = performance.now();
  let rampMs = NaN;
  // The longest time no connection got an answer: a stall of the whole server or load generator.
  let lastAnswer = started;
  let silenceMs = 0;
  const serverSteady: number[] = [];
  c.proc.onAccess = (ms) => (Number.isNaN(rampMs) ? serverMs : serverSteady).push(ms);
  const instance = autocannon({
    ...c.options,
    duration: seconds,
    connections,
    ...(c.isResult ? { verifyBody } : {}),
  }) as Promise<autocannon.Result> & autocannon.Instance;
  instance.on('response', (client, _status, _bytes, ms) => {
    all.push(ms);
    const now = performance.now();
    if (!Number.isNaN(rampMs)) silenceMs = Math.max(silenceMs, now - lastAnswer);
    lastAnswer = now;
    if (!Number.isNaN(rampMs)) return steady.push(ms);
    answered.add(client);
    if (answered.size === connections) rampMs = now - started;
  });
  const result = await instance;
  c.proc.onAccess = undefined;
  // A run in which some connection never got an answer has no steady state: all its answers count.
  const latencies = steady.length > 0 ? steady : all;
  const server = serverSteady.length > 0 ? serverSteady : serverMs;
  return {
    result,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p99WithRamp: percentile(all, 99),
    serverP50: percentile(server, 50),
    serverP99: percentile(server, 99),
    rampMs,
    silenceMs,
  };
}

/** Failures by kind: connection errors, non-2xx answers, timeouts, answers that were not results. */
const failures = (r: autocannon.Result) => [r.errors, r.non2xx, r.timeouts, r.mismatches];

async function measure(c: Case, warmUp: boolean): Promise<Round> {
  // A warm-up first, so JIT, caches and pools are settled before the baseline probe and the measured run.
  if (warmUp) await run(c, 2, CONNECTIONS);
  const before = await probe(c.proc);
  const serverCpuWait = watchCpuWait(c.proc.child.pid!);
  const clientCpuWait = watchCpuWait('self');
  const { result: r, ...latency } = await run(c, SECONDS, CONNECTIONS);
  const waits = { serverCpuWait: serverCpuWait(), clientCpuWait: clientCpuWait() };
  const after = await probe(c.proc);
  return {
    rps: r.requests.average,
    ...latency,
    ...waits,
    errors: failures(r),
    heapPerCall: (after.heapUsed - before.heapUsed) / r.requests.total,
    cpuMicrosPerCall: (after.cpuMicros - before.cpuMicros) / r.requests.total,
    probe: after,
  };
}

/** One connection, no queueing: the client's p50 and p99, and the server's own (its access lines). */
async function measureLatency(c: Case) {
  const { result, ...latency } = await run(c, LATENCY_SECONDS, 1);
  return { ...latency, errors: failures(result) };
}

async function graphql<T>(port: number, query: string, bearer?: string): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({ query }),
  });
  return ((await response.json()) as { data: T }).data;
}

const token = async (port: number) =>
  (
    await graphql<{ login: { token: string } }>(
      port,
      'mutation { login(input: { username: "user", password: "user123" }) { token } }',
    )
  ).login.token;

/** The id of the first entry on the bench user's watch list (the write case toggles its status). */
const firstWatchlistItem = async (port: number, bearer: string) =>
  (await graphql<{ watchlist: { id: string }[] }>(port, '{ watchlist { id } }', bearer)).watchlist[0]!.id;

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

/** The per-request envelope a 2026-07-28 client sends instead of a session. */
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
let nextId = 0;

/**
 * tools/call requests, each with a JSON-RPC id of its own (ids repeated on one session would be
 * requests the server cannot tell apart); `args` may vary per request. autocannon's idReplacement
 * keeps the first Content-Length, so the body is built per request here instead.
 */
function toolCalls(
  port: number,
  headers: Record<string, string>,
  era: '2025' | '2026',
  name: string,
  args: (n: number) => Record<string, unknown>,
): autocannon.Options {
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      ...headers,
      ...(era === '2026'
        ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name }
        : { 'mcp-protocol-version': '2025-11-25' }),
    },
    requests: [
      {
        setupRequest: (request) => {
          const id = ++nextId;
          const params = { name, arguments: args(id), ...(era === '2026' ? { _meta: ENVELOPE_2026 } : {}) };
          return { ...request, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) };
        },
      },
    ],
  };
}

const isToolResult = (body: string) => body.includes('"isError":false');
const recommend = () => ({ mood: 'HORROR' });

/** One store's figures for the table of both stores: ratio, p99/p50 and CPU per call of each case. */
interface StoreSummary {
  store: string;
  cells: Map<string, string>;
  memory: string;
}

async function benchStore(url: string | undefined): Promise<StoreSummary> {
  const storeName = url ? 'PostgreSQL' : 'SQLite';
  console.error(`${storeName}:`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-'));
  const procs: Proc[] = [];
  try {
    // The big catalogue is one store both servers share; otherwise each seeds a fresh one of its own.
    const large =
      CATALOGUE === 'large'
        ? await prepareLargeCatalogue(path.join(dataDir, 'large'), url, SERVER_ENV)
        : undefined;
    const bare = await startProcess(
      ['node', '--expose-gc', '--import', './bench/heap-probe.mjs', 'bench/bare-server.mjs'],
      {},
      (line) => (line.includes('listening') ? (JSON.parse(line).listening as number) : undefined),
    );
    procs.push(bare);
    const sessions = await startApp(
      'sessions',
      large?.env ?? freshStore(path.join(dataDir, 'sessions'), url),
    );
    procs.push(sessions);
    const stateless = await startApp(
      'stateless',
      large?.env ?? freshStore(path.join(dataDir, 'stateless'), url),
    );
    procs.push(stateless);
    const bearer = await token(sessions.port);
    const bearerStateless = await token(stateless.port);
    const auth = { authorization: `Bearer ${bearer}` };
    const init = await initialize(sessions.port, bearer);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const item = await firstWatchlistItem(sessions.port, bearer);
    // Resident sets before any load: each server started, signed in, one session open.
    const idleRss = new Map<Proc, number>();
    for (const proc of procs) idleRss.set(proc, (await probe(proc)).rss);

    const cases: Case[] = [
      {
        name: 'bare Express GET (baseline)',
        proc: bare,
        options: { url: `http://127.0.0.1:${bare.port}/` },
        latency: true,
      },
      {
        name: 'GraphQL POST recommendMoviesForMood',
        proc: sessions,
        options: {
          url: `http://127.0.0.1:${sessions.port}/graphql`,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body: JSON.stringify({
            query:
              'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id title releaseYear genre rating runtime directors { name } } }',
            variables: { mood: 'HORROR' },
          }),
        },
        isResult: (body) => body.includes('"recommendMoviesForMood":[{') && !body.includes('"errors"'),
        target: 0.6,
        latency: true,
      },
      {
        name: 'tools/call recommend, 2025 session (SSE)',
        proc: sessions,
        options: toolCalls(
          sessions.port,
          { ...auth, 'mcp-session-id': sessionId },
          '2025',
          'recommendMoviesForMood',
          recommend,
        ),
        isResult: isToolResult,
        target: 0.5,
        latency: true,
      },
      {
        name: 'tools/call recommend, 2025 stateless (JSON)',
        proc: stateless,
        options: toolCalls(
          stateless.port,
          { authorization: `Bearer ${bearerStateless}` },
          '2025',
          'recommendMoviesForMood',
          recommend,
        ),
        isResult: isToolResult,
        target: 0.45,
        latency: true,
      },
      {
        name: 'tools/call recommend, 2026-07-28 (JSON)',
        proc: sessions,
        options: toolCalls(sessions.port, auth, '2026', 'recommendMoviesForMood', recommend),
        isResult: isToolResult,
        latency: true,
      },
      {
        name: 'tools/call myWatchlist (per viewer), 2026-07-28',
        proc: sessions,
        options: toolCalls(sessions.port, auth, '2026', 'myWatchlist', () => ({})),
        isResult: isToolResult,
        target: 0.3,
        latency: true,
      },
      {
        name: 'tools/call setWatchStatus toggling (write), 2026-07-28',
        proc: sessions,
        options: toolCalls(sessions.port, auth, '2026', 'setWatchStatus', (n) => ({
          itemId: item,
          status: n % 2 ? 'WATCHED' : 'WANT_TO_WATCH',
        })),
        isResult: isToolResult,
        target: 0.2,
        latency: true,
      },
    ];

    const rounds = new Map<Case, Round[]>(cases.map((c) => [c, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) rounds.get(c)!.push(await measure(c, round === 0));
      console.error(`round ${round + 1} of ${ROUNDS} done`);
    }
    const latencies = new Map<Case, Awaited<ReturnType<typeof measureLatency>>>();
    for (const c of cases.filter((c) => c.latency)) latencies.set(c, await measureLatency(c));

    // What an idle, never-deleted session costs until eviction.
    const before = await probe(sessions);
    for (let i = 0; i < IDLE_SESSIONS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => (await initialize(sessions.port, bearer)).text()),
      );
    }
    const perIdleSession = ((await probe(sessions)).heapUsed - before.heapUsed) / IDLE_SESSIONS;

    const baseline = rounds.get(cases[0]!)!;
    const cells = new Map<string, string>();
    let failed = false;
    const fixed = (value: number) => (Number.isNaN(value) ? '' : value.toFixed(2));
    const measured: Measured[] = [];
    const throughputRows = [];
    const latencyRows = [];
    for (const c of cases) {
      const results = rounds.get(c)!;
      const ratios = results.map((r, i) => r.rps / baseline[i]!.rps);
      const ratio = median(ratios);
      const of = (figure: (r: Round) => number) => median(results.map(figure));
      const single = latencies.get(c);
      const errors = [...results.map((r) => r.errors), single?.errors ?? [0, 0, 0, 0]].reduce((sum, e) =>
        sum.map((n, i) => n + e[i]!),
      );
      if (errors.some((n) => n > 0)) failed = true;
      const m: Measured = {
        name: c.name,
        baseline: c === cases[0],
        toolCall: c.name.startsWith('tools/call'),
        ratioTarget: c.target,
        ratio,
        cpuMicrosPerCall: of((r) => r.cpuMicrosPerCall),
        p50: of((r) => r.p50),
        p99: of((r) => r.p99),
        serverP50: of((r) => r.serverP50),
        serverP99: of((r) => r.serverP99),
        // A round that never reached the steady state is reported as such, not hidden by the median.
        rampMs: results.some((r) => Number.isNaN(r.rampMs)) ? NaN : of((r) => r.rampMs),
        silenceMs: of((r) => r.silenceMs),
        gcMaxMs: of((r) => r.probe.gcMaxMs),
        loopDelayP99Ms: of((r) => r.probe.loopDelayP99Ms),
        serverCpuWait: of((r) => r.serverCpuWait),
        clientCpuWait: of((r) => r.clientCpuWait),
        single,
      };
      measured.push(m);
      throughputRows.push({
        case: c.name,
        'req/s': Math.round(of((r) => r.rps)),
        ratio: ratio.toFixed(2),
        spread: `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
        target: c.target === undefined ? '' : `${c.target} ${ratio >= c.target ? 'met' : 'NOT met'}`,
        'CPU µs/call': m.cpuMicrosPerCall.toFixed(0),
        // Server CPU per call of the baseline over this case's, per round: less sensitive to other
        // load on the machine than throughput.
        'CPU ratio': median(
          results.map((r, i) => baseline[i]!.cpuMicrosPerCall / r.cpuMicrosPerCall),
        ).toFixed(2),
        'heap B/call': m.baseline ? '' : of((r) => r.heapPerCall).toFixed(1),
        'errors (conn/non-2xx/timeout/not a result)': errors.join('/'),
      });
      cells.set(
        c.name,
        `${ratio.toFixed(2)}; ${(m.p99 / m.p50).toFixed(1)}; ${m.cpuMicrosPerCall.toFixed(0)} µs`,
      );
      latencyRows.push({
        case: c.name,
        [`${CONNECTIONS} conn p50/p99`]: `${fixed(m.p50)}/${fixed(m.p99)}`,
        'p99/p50': (m.p99 / m.p50).toFixed(1),
        'server p50/p99': m.baseline ? '' : `${fixed(m.serverP50)}/${fixed(m.serverP99)}`,
        'p99 with ramp': fixed(of((r) => r.p99WithRamp)),
        'all conns answered after': Number.isNaN(m.rampMs) ? 'never' : `${m.rampMs.toFixed(0)} ms`,
        'no answer for': fixed(m.silenceMs),
        'GC pauses, longest': `${of((r) => r.probe.gcCount).toFixed(0)}, ${fixed(m.gcMaxMs)}`,
        'loop held p99/max': `${fixed(m.loopDelayP99Ms)}/${fixed(of((r) => r.probe.loopDelayMaxMs))}`,
        'CPU wait server/client': `${(m.serverCpuWait * 100).toFixed(0)}%/${(m.clientCpuWait * 100).toFixed(0)}%`,
        '1 conn p50/p99': single ? `${fixed(single.p50)}/${fixed(single.p99)}` : '',
        '1 conn server p50/p99':
          single && !m.baseline ? `${fixed(single.serverP50)}/${fixed(single.serverP99)}` : '',
      });
    }
    console.log(
      `\nmoviedb-mcp benchmark: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per case, ` +
        `${storeName}, ${CATALOGUE === 'large' ? `large catalogue (${large!.where})` : 'seed catalogue'}, ` +
        `loopback, node ${process.version}`,
    );
    console.table(throughputRows);
    console.log(
      `ratio: median of the rounds' ratios to the baseline (spread: lowest-highest); CPU and heap per call ` +
        `from the server process (heap after GC)`,
    );
    console.table(latencyRows);
    console.log(
      `latency in ms, medians of the rounds, once every connection had its first answer (the run's ramp until ` +
        `then apart): client side (every response timed), the server's own from its ` +
        `access lines; GC pauses and event-loop stalls of the server while loaded; the share of the run the server's ` +
        `event loop and the load generator were ready but waited for a CPU others held; 1 connection over ${LATENCY_SECONDS} s`,
    );
    console.log('\ntargets:');
    for (const v of judgeTargets(measured)) {
      console.log(
        `${v.met ? 'met    ' : 'NOT met'}  ${v.case}: ${v.target}: ${v.measured}${v.reason ? `\n           why: ${v.reason}` : ''}`,
      );
    }
    console.log(
      `idle session cost: ${(perIdleSession / 1024).toFixed(1)} KiB each (${IDLE_SESSIONS} sessions, heap after GC)`,
    );
    // The highest resident set after a loaded run (the probe's, after GC) of each server.
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    const rssOf = (proc: Proc, name: string) => {
      const loaded = Math.max(
        ...cases.filter((c) => c.proc === proc).flatMap((c) => rounds.get(c)!.map((r) => r.probe.rss)),
      );
      return `${name} ${mib(idleRss.get(proc)!)} idle, ${mib(loaded)} loaded`;
    };
    const memory = [
      rssOf(sessions, 'sessions server'),
      rssOf(stateless, 'stateless server'),
      rssOf(bare, 'bare baseline'),
    ].join('; ');
    console.log(`resident set: ${memory}`);
    for (const [name, body] of mismatched) console.error(`${name}: an answer that was not a result: ${body}`);
    if (failed) {
      console.error(
        'Some requests failed or answered something other than a result: the figures are not valid.',
      );
      process.exitCode = 1;
    }
    return { store: storeName, cells, memory };
  } finally {
    for (const proc of procs) proc.child.kill('SIGTERM');
    await Promise.all(
      procs.map((proc) =>
        proc.child.exitCode === null ? new Promise((resolve) => proc.child.once('exit', resolve)) : undefined,
      ),
    );
    await dropSchemas(url);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const summaries: StoreSummary[] = [];
if (STORES.includes('sqlite')) summaries.push(await benchStore(undefined));
if (STORES.includes('postgres') && DATABASE_URL) summaries.push(await benchStore(DATABASE_URL));
if (summaries.length > 1) {
  console.log('\nboth stores: ratio to bare; p99/p50 at 50 connections; server CPU per call');
  console.table(
    [...summaries[0]!.cells.keys()].map((name) => ({
      case: name,
      ...Object.fromEntries(summaries.map((summary) => [summary.store, summary.cells.get(name) ?? ''])),
    })),
  );
  for (const summary of summaries) console.log(`resident set, ${summary.store}: ${summary.memory}`);
}
