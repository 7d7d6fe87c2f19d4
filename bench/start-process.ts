/** A benchmarked process (a server with bench/heap-probe.mjs loaded), started and read from continuously. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const pin = existsSync('/usr/bin/taskset') ? ['taskset', '-c', '0'] : [];

/** What bench/heap-probe.mjs reports: heap after GC and CPU so far; GC and loop stalls since the last report. */
export interface Probe {
  heapUsed: number;
  /** Resident set, bytes. */
  rss: number;
  cpuMicros: number;
  gcCount: number;
  gcMaxMs: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

export interface Proc {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** Resolves with the next heap and CPU report the probe prints. */
  nextProbe(): Promise<Probe>;
  /** Resolves with the next line of stdout that `match` accepts; rejects if the process exits first. */
  nextLine(match: (line: string) => boolean): Promise<string>;
  /** While set, receives the `ms` of every access line the server writes (its own view of latency). */
  onAccess?: (ms: number) => void;
}

/**
 * Starts a process (pinned to core 0 when taskset exists) and reads its stdout continuously: a server
 * whose log pipe is not drained would block on writes (or buffer them in memory) and the benchmark would
 * measure that instead.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyLine: (line: string) => number | undefined,
): Promise<Proc> {
  const [command, ...rest] = [...pin, ...args];
  const child = spawn(command!, rest, { env: { ...process.env, ...env } });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  const probeWaiters: ((probe: Probe) => void)[] = [];
  const lineWaiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`))),
  );
  exited.catch(() => undefined);
  const nextLine = (match: (line: string) => boolean) =>
    Promise.race([new Promise<string>((resolve) => lineWaiters.add({ match, resolve })), exited]);
  return new Promise((resolve, reject) => {
    let proc: Proc | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      for (const waiter of lineWaiters) {
        if (!waiter.match(line)) continue;
        lineWaiters.delete(waiter);
        waiter.resolve(line);
      }
      if (line.includes('"heapUsed"')) return probeWaiters.shift()?.(JSON.parse(line) as Probe);
      if (proc?.onAccess && line.includes('"msg":"request"')) return proc.onAccess(JSON.parse(line).ms);
      const port = proc ? undefined : readyLine(line);
      if (port) {
        proc = { child, port, nextProbe: () => new Promise((r) => probeWaiters.push(r)), nextLine };
        resolve(proc);
      }
    });
    child.on('exit', () => !proc && reject(new Error(`${args.join(' ')} exited before it was ready`)));
  });
}

/** Heap in use after GC, and CPU used so far, in the server process (bench/heap-probe.mjs). */
export async function probe(proc: Proc): Promise<Probe> {
  const report = proc.nextProbe();
  proc.child.kill('SIGUSR2');
  return report;
}

/**
 * The resident set as a process monitor sees it (`VmRSS`), without the collections the probe forces
 * first: those change when V8 gives memory back, so an idle figure read through the probe is not what an
 * idle server holds. Linux only; elsewhere the probe's figure.
 */
export async function residentSet(proc: Proc): Promise<number> {
  const status = `/proc/${proc.child.pid}/status`;
  if (!existsSync(status)) return (await probe(proc)).rss;
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(status, 'utf8'))![1]) * 1024;
}

/** Sends SIGTERM to each process and waits until all have exited; one still running after 10 s is killed. */
export async function stopProcesses(procs: Proc[]): Promise<void> {
  const exits = procs.map((proc) => {
    const running = proc.child.exitCode === null && proc.child.signalCode === null;
    return running ? new Promise((resolve) => proc.child.once('exit', resolve)) : undefined;
  });
  for (const proc of procs) proc.child.kill('SIGTERM');
  const kill = setTimeout(() => procs.forEach((proc) => proc.child.kill('SIGKILL')), 10_000);
  await Promise.all(exits);
  clearTimeout(kill);
}
