/**
 * One store's run of `npm run bench`, printed: throughput and CPU per call beside the baseline, latency at
 * 50 connections and at one, the targets judged (bench/targets.ts), idle-session cost and resident sets.
 */
import { mismatched, type Case, type Round, type SingleLatency } from './measure.js';
import { median } from './percentile.js';
import { settings } from './settings.js';
import type { Proc } from './start-process.js';
import { judgeIdleRss, judgeTargets, type Measured } from './targets.js';

export interface StoreRun {
  storeName: string;
  /** Where the large catalogue is, when it was served instead of the seed one. */
  largeCatalogue: string | undefined;
  cases: Case[];
  rounds: Map<Case, Round[]>;
  latencies: Map<Case, SingleLatency>;
  perIdleSession: number;
  /** Resident sets before any load (no collection forced): started, after BENCH_SETTLE_SECONDS, after BENCH_SETTLED_SECONDS. */
  startedRss: Map<Proc, number>;
  idleRss: Map<Proc, number>;
  settledRss: Map<Proc, number>;
  servers: { bare: Proc; sessions: Proc; stateless: Proc };
}

/**
 * Prints the run (a request that failed fails the process); returns its cells for the table of both
 * stores and its memory line.
 */
export function reportStore({
  storeName,
  largeCatalogue,
  cases,
  rounds,
  latencies,
  perIdleSession,
  startedRss,
  idleRss,
  settledRss,
  servers: { bare, sessions, stateless },
}: StoreRun): { cells: Map<string, string>; memory: string } {
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
      'CPU ratio': median(results.map((r, i) => baseline[i]!.cpuMicrosPerCall / r.cpuMicrosPerCall)).toFixed(
        2,
      ),
      'heap B/call': m.baseline ? '' : of((r) => r.heapPerCall).toFixed(1),
      'errors (conn/non-2xx/timeout/not a result)': errors.join('/'),
    });
    cells.set(
      c.name,
      `${ratio.toFixed(2)}; ${(m.p99 / m.p50).toFixed(1)}; ${m.cpuMicrosPerCall.toFixed(0)} µs`,
    );
    latencyRows.push({
      case: c.name,
      [`${settings.connections} conn p50/p99`]: `${fixed(m.p50)}/${fixed(m.p99)}`,
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
    `\nmoviedb-mcp benchmark: ${settings.connections} connections, ${settings.rounds} rounds of ${settings.seconds} s per case, ` +
      `${storeName}, ${largeCatalogue ? `large catalogue (${largeCatalogue})` : 'seed catalogue'}, ` +
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
      `event loop and the load generator were ready but waited for a CPU others held; 1 connection over ${settings.latencySeconds} s`,
  );
  console.log('\ntargets:');
  const memoryVerdicts = [
    judgeIdleRss('sessions server', settledRss.get(sessions)!, idleRss.get(sessions)!, settledRss.get(bare)!),
    judgeIdleRss(
      'stateless server',
      settledRss.get(stateless)!,
      idleRss.get(stateless)!,
      settledRss.get(bare)!,
    ),
  ];
  for (const v of [...judgeTargets(measured), ...memoryVerdicts]) {
    console.log(
      `${v.met ? 'met    ' : 'NOT met'}  ${v.case}: ${v.target}: ${v.measured}${v.reason ? `\n           why: ${v.reason}` : ''}`,
    );
  }
  console.log(
    `idle session cost: ${(perIdleSession / 1024).toFixed(1)} KiB each (${settings.idleSessions} sessions, heap after GC)`,
  );
  // The highest resident set after a loaded run (the probe's, after GC) of each server.
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  const rssOf = (proc: Proc, name: string) => {
    const loaded = Math.max(
      ...cases.filter((c) => c.proc === proc).flatMap((c) => rounds.get(c)!.map((r) => r.probe.rss)),
    );
    return (
      `${name} ${mib(startedRss.get(proc)!)} started, ${mib(idleRss.get(proc)!)} idle ${settings.settleSeconds} s, ` +
      `${mib(settledRss.get(proc)!)} idle ${settings.settledSeconds} s, ${mib(loaded)} loaded`
    );
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
  return { cells, memory };
}
