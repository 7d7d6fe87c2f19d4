/**
 * The performance targets (docs/benchmarks.md) judged on one run of `npm run bench`: each is met, or NOT met with what the run
 * measured that explains it (the server's own work, its GC and event-loop stalls, or the machine, as the
 * bare baseline measured in the same run shows). Only figures from the same run are compared.
 */
import { settings } from './settings.js';

/** What one case measured: medians over the rounds at 50 connections, and the one-connection run. */
export interface Measured {
  name: string;
  baseline: boolean;
  /** A tools/call case: the latency targets apply. */
  toolCall: boolean;
  ratioTarget?: number;
  ratio: number;
  cpuMicrosPerCall: number;
  /** At 50 connections, ms: client side, and the server's own (its access lines; NaN for the baseline). */
  p50: number;
  p99: number;
  serverP50: number;
  serverP99: number;
  /** Until every connection had its first answer, ms. */
  rampMs: number;
  /** The longest time in the steady state with no answer on any connection, ms. */
  silenceMs: number;
  /** The server's longest GC pause and its event loop's stalls (p99) while loaded, ms. */
  gcMaxMs: number;
  loopDelayP99Ms: number;
  /** Shares of the loaded run the server's event loop and the load generator waited for a CPU (0-1). */
  serverCpuWait: number;
  clientCpuWait: number;
  /** At one connection, ms. */
  single?: { p50: number; p99: number; serverP50: number; serverP99: number };
}

export interface Verdict {
  case: string;
  target: string;
  measured: string;
  met: boolean;
  /** Why not, in figures of the same run. */
  reason?: string;
}

/** The latency targets, and the resident set of an idle server. */
const TARGETS = {
  idleRssMiB: 100,
  serverP50Ms: 0.5,
  clientP99Ms: 2,
  tailRatio: 3,
};

const ms = (value: number) => `${value.toFixed(2)} ms`;
const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
const tail = (m: { p50: number; p99: number }) => m.p99 / m.p50;

function ratioReason(c: Measured, base: Measured): string {
  return (
    `server CPU ${c.cpuMicrosPerCall.toFixed(0)} µs per call against the baseline's ` +
    `${base.cpuMicrosPerCall.toFixed(0)} µs: throughput follows the work done per call`
  );
}

function serverP50Reason(c: Measured, base: Measured): string {
  const cpuMs = c.cpuMicrosPerCall / 1000;
  if (cpuMs >= TARGETS.serverP50Ms) return `its own work: ${ms(cpuMs)} of server CPU per call`;
  return (
    `${ms(cpuMs)} of server CPU per call, the rest waiting for the CPU on a busy machine ` +
    `(the bare baseline's client p50 at 1 connection: ${ms(base.single!.p50)})`
  );
}

function clientP99Reason(c: Measured, base: Measured): string {
  const single = c.single!;
  const baseP99 = base.single!.p99;
  if (baseP99 >= TARGETS.clientP99Ms)
    return `the machine: the bare baseline's own p99 at 1 connection is ${ms(baseP99)} in this run`;
  if (single.serverP99 >= TARGETS.clientP99Ms)
    return `inside the server: its own p99 is ${ms(single.serverP99)} (longest GC pause under load ${ms(c.gcMaxMs)})`;
  return (
    `outside the server's handler: its own p99 is ${ms(single.serverP99)}, the baseline's client p99 ` +
    `${ms(baseP99)}`
  );
}

function tailReason(c: Measured, base: Measured): string {
  const server = `server-side p50/p99 ${ms(c.serverP50)}/${ms(c.serverP99)}`;
  const stalls = `event loop held ${ms(c.loopDelayP99Ms)} at p99, longest GC pause ${ms(c.gcMaxMs)}`;
  const baseTail = tail(base).toFixed(1);
  const machine =
    tail(base) > TARGETS.tailRatio
      ? `the machine: the bare baseline's own p99/p50 in this run is ${baseTail}`
      : `not the machine alone: the bare baseline's p99/p50 is ${baseTail}`;
  const silence = `no answer at all for ${ms(c.silenceMs)} at a stretch (the baseline: ${ms(base.silenceMs)})`;
  const waits =
    `the server waited for a CPU ${percent(c.serverCpuWait)} of the run, the load generator ` +
    `${percent(c.clientCpuWait)}`;
  const ramp = Number.isNaN(c.rampMs)
    ? 'some connection had no answer in the whole run (a saturated server takes new connections from ' +
      "the kernel's accept queue slowly), so its figures include that wait; "
    : '';
  return `${ramp}${machine}; ${silence}; ${waits}; ${server}; ${stalls}`;
}

export function judgeTargets(cases: Measured[]): Verdict[] {
  const base = cases.find((c) => c.baseline);
  if (!base) throw new Error('no baseline case');
  const verdicts: Verdict[] = [];
  const judge = (c: Measured, target: string, measured: string, met: boolean, reason: () => string) =>
    verdicts.push({ case: c.name, target, measured, met, ...(met ? {} : { reason: reason() }) });

  for (const c of cases.filter((c) => !c.baseline)) {
    if (c.ratioTarget !== undefined) {
      judge(
        c,
        `throughput ≥ ${c.ratioTarget}x bare`,
        `${c.ratio.toFixed(2)}x`,
        c.ratio >= c.ratioTarget,
        () => ratioReason(c, base),
      );
    }
    if (c.toolCall && c.single) {
      judge(
        c,
        `1 connection: server p50 < ${TARGETS.serverP50Ms} ms`,
        ms(c.single.serverP50),
        c.single.serverP50 < TARGETS.serverP50Ms,
        () => serverP50Reason(c, base),
      );
      judge(
        c,
        `1 connection: client p99 < ${TARGETS.clientP99Ms} ms`,
        ms(c.single.p99),
        c.single.p99 < TARGETS.clientP99Ms,
        () => clientP99Reason(c, base),
      );
    }
    // The machine's own tail is the floor: a server cannot answer more evenly than bare Express here.
    const tailBound = Math.max(TARGETS.tailRatio, tail(base));
    judge(
      c,
      `50 connections: p99 ≤ max(${TARGETS.tailRatio}, bare's ${tail(base).toFixed(1)})x p50`,
      `${tail(c).toFixed(1)}x (${ms(c.p50)}/${ms(c.p99)})`,
      tail(c) <= tailBound,
      () => tailReason(c, base),
    );
  }
  return verdicts;
}

/**
 * The idle resident set of an app server (signed in, one session open, then left alone BENCH_SETTLED_SECONDS),
 * read as a process monitor reads it; the figure BENCH_SETTLE_SECONDS in is printed beside it.
 */
export function judgeIdleRss(
  server: string,
  settledBytes: number,
  earlyBytes: number,
  bareBytes: number,
): Verdict {
  const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const met = settledBytes / 2 ** 20 <= TARGETS.idleRssMiB;
  return {
    case: server,
    target: `idle resident set ≤ ${TARGETS.idleRssMiB} MiB after ${settings.settledSeconds} s`,
    measured: `${MiB(settledBytes)} MiB (${MiB(earlyBytes)} MiB after ${settings.settleSeconds} s)`,
    met,
    ...(met
      ? {}
      : {
          reason:
            `the bare Express baseline holds ${MiB(bareBytes)} MiB idle in this run; ` +
            'the rest is module code, heap and the store, and the young generation until V8 gives it back ' +
            '(docs/benchmarks.md, Memory)',
        }),
  };
}
