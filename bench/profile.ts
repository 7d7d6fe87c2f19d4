/**
 * npm run bench:profile: where the server's CPU goes per call, case by case, on each store. The servers
 * and cases are `npm run bench`'s (bench-cases.ts), started the same way with V8's sampling profiler
 * beside them (bench/cpu-profile-probe.mjs); each case is warmed up, then loaded at BENCH_CONNECTIONS for
 * BENCH_PROFILE_SECONDS with the profiler on, and its profile is summarized per answered call: by part
 * (a package, a folder of ours, Node's own modules, GC) and by function (bench/cpu-profile-summary.ts),
 * beside the server's CPU per call as `npm run bench` measures it. The .cpuprofile files are kept, for
 * Chrome DevTools' Performance panel.
 *
 * Settings (environment): BENCH_PROFILE_CASES (words a case's name must contain, comma-separated:
 * `myWatchlist,toggling`; every case with a target by default; the bare baseline has no profiler),
 * BENCH_PROFILE_SECONDS (10), BENCH_PROFILE_TOP (15 functions), and npm run bench's BENCH_STORES,
 * BENCH_DATABASE_URL and BENCH_CONNECTIONS.
 */
import autocannon from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchCases } from './bench-cases.js';
import { summarizeCpuProfile, type CpuProfile, type ProfileRow } from './cpu-profile-summary.js';
import { createFreshStores } from './fresh-stores.js';
import type { Case } from './measure.js';
import { initialize, token, watchlistItems } from './requests.js';
import { settings } from './settings.js';
import { probe, stopProcesses, type Proc } from './start-process.js';
import { startApp, startBareServer } from './start-servers.js';

const { seconds, top, cases: wanted } = settings.profile;
const profiles = mkdtempSync(path.join(tmpdir(), 'moviedb-profile-'));

/** Sends a command to the server's profiler and waits for what it reports. */
async function profiler(proc: Proc, command: string, expected: 'started' | 'written'): Promise<void> {
  const reported = proc.nextLine((line) => line.startsWith('{"cpuProfile"'));
  proc.child.stdin.write(`${command}\n`);
  const report = JSON.parse(await reported) as { cpuProfile: string; error?: string };
  if (report.cpuProfile !== expected) throw new Error(`the profiler: ${report.error ?? report.cpuProfile}`);
}

const load = (c: Case, duration: number) =>
  autocannon({
    ...c.options,
    duration,
    connections: settings.connections,
    ...(c.isResult ? { verifyBody: (body: unknown) => c.isResult!(String(body)) } : {}),
  });

const row = (r: ProfileRow) => ({
  µs: Number(r.microsPerCall.toFixed(1)),
  share: `${(r.share * 100).toFixed(1)}%`,
});

/** One case: warmed up, then loaded with the profiler on; its profile and CPU per answered call. */
async function profileCase(c: Case, file: string, storeName: string): Promise<void> {
  await load(c, 2);
  const before = await probe(c.proc);
  await profiler(c.proc, 'start', 'started');
  const result = await load(c, seconds);
  await profiler(c.proc, `stop ${file}`, 'written');
  const after = await probe(c.proc);
  const answered = result['2xx'] - result.mismatches;
  const failed = result.requests.total - answered + result.errors + result.timeouts;
  const summary = summarizeCpuProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, answered, top);
  console.log(
    `\n${storeName}: ${c.name}: ${answered} calls answered` +
      (failed > 0 ? ` (${failed} FAILED: errors, timeouts, non-2xx or not a result)` : '') +
      `, ${summary.sampledMicrosPerCall.toFixed(0)} µs sampled and ` +
      `${((after.cpuMicros - before.cpuMicros) / answered).toFixed(0)} µs of CPU per call (${file})`,
  );
  console.table(
    Object.fromEntries(summary.parts.filter((p) => p.share >= 0.005).map((p) => [p.name, row(p)])),
  );
  console.table(Object.fromEntries(summary.functions.map((f) => [f.name, row(f)])));
}

async function profileStore(url: string | undefined): Promise<void> {
  const storeName = url ? 'PostgreSQL' : 'SQLite';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-profile-data-'));
  const stores = createFreshStores(url);
  const withProfiler = ['--import', './bench/cpu-profile-probe.mjs'];
  const procs: Proc[] = [];
  const started = (proc: Proc) => (procs.push(proc), proc);
  try {
    const bare = started(await startBareServer());
    const sessions = started(
      await startApp('sessions', stores.storeIn(path.join(dataDir, 'sessions')), withProfiler),
    );
    const stateless = started(
      await startApp('stateless', stores.storeIn(path.join(dataDir, 'stateless')), withProfiler),
    );
    const bearer = await token(sessions.port);
    const init = await initialize(sessions.port, bearer);
    await init.text();
    const cases = benchCases({
      store: url ? 'postgres' : 'sqlite',
      bare,
      sessions,
      stateless,
      bearer,
      bearerStateless: await token(stateless.port),
      sessionId: init.headers.get('mcp-session-id')!,
      items: await watchlistItems(sessions.port, bearer, settings.connections),
    });
    const chosen = cases.filter(
      (c) =>
        c.proc !== bare && (wanted ? wanted.some((word) => c.name.includes(word)) : c.target !== undefined),
    );
    for (const c of chosen) {
      const file = path.join(
        profiles,
        `${storeName} ${c.name.replaceAll(/[^\w.-]+/g, ' ').trim()}.cpuprofile`,
      );
      await profileCase(c, file, storeName);
    }
  } finally {
    await stopProcesses(procs);
    await stores.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (settings.stores.includes('sqlite')) await profileStore(undefined);
if (settings.stores.includes('postgres') && settings.databaseUrl) await profileStore(settings.databaseUrl);
console.log(`\nprofiles kept in ${profiles}`);
