// Loaded with --import into a benchmarked server (started with --expose-gc): on SIGUSR2 it prints the
// heap in use after collecting garbage, the resident set and the CPU time used so far, so the benchmark can measure what
// stays behind per call and what a call costs the server; and, since the previous report, the server's
// GC pauses and how long its event loop was held at a stretch, so a latency tail can be told apart from
// the server's own stalls.
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
let gc = { count: 0, maxMs: 0 };
// The collections the probe forces itself are not the server's: entries from before this are skipped.
let forcedUntil = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.startTime < forcedUntil) continue;
    gc.count++;
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  const report = {
    gcCount: gc.count,
    gcMaxMs: gc.maxMs,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  };
  globalThis.gc?.();
  globalThis.gc?.();
  forcedUntil = performance.now();
  gc = { count: 0, maxMs: 0 };
  loopDelay.reset();
  const { user, system } = process.cpuUsage();
  const { heapUsed, rss } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ heapUsed, rss, cpuMicros: user + system, ...report })}\n`);
});
