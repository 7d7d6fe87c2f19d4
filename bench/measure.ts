/**
 * One case measured: autocannon runs against one server, with its CPU, heap, GC and latency as seen from
 * both ends.
 */
import autocannon from 'autocannon';
import { watchCpuWait } from './cpu-wait.js';
import { percentile } from './percentile.js';
import { settings } from './settings.js';
import { probe, type Probe, type Proc } from './start-process.js';

export interface Case {
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

export interface Round {
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

/** The first answer of each case that was not a result, printed once at the end. */
export const mismatched = new Map<string, string>();

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

export async function measure(c: Case, warmUp: boolean): Promise<Round> {
  // A warm-up first, so JIT, caches and pools are settled before the baseline probe and the measured run.
  if (warmUp) await run(c, 2, settings.connections);
  const before = await probe(c.proc);
  const serverCpuWait = watchCpuWait(c.proc.child.pid!);
  const clientCpuWait = watchCpuWait('self');
  const { result: r, ...latency } = await run(c, settings.seconds, settings.connections);
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
export async function measureLatency(c: Case) {
  const { result, ...latency } = await run(c, settings.latencySeconds, 1);
  return { ...latency, errors: failures(result) };
}

/** The one-connection figures of a case. */
export type SingleLatency = Awaited<ReturnType<typeof measureLatency>>;
