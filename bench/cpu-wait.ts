/**
 * How long a process's main thread (a server's event loop, or the load generator) was ready to run but
 * waited for a CPU taken by other processes, from Linux's /proc/<pid>/schedstat (time on CPU, time
 * waiting in the run queue, in ns). On a machine shared with other jobs this is what no code of ours can
 * shorten, and it shows in latency tails. Elsewhere (no /proc) it reports NaN.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

function waitingNs(pid: number | 'self'): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return NaN;
  }
}

/** Starts watching; the function returned gives the share of the time since then spent waiting (0-1). */
export function watchCpuWait(pid: number | 'self'): () => number {
  const startedNs = waitingNs(pid);
  const started = performance.now();
  return () => (waitingNs(pid) - startedNs) / 1e6 / (performance.now() - started);
}
