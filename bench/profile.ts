/**
 * npm run bench:profile: where the server's CPU goes per call, case by case, on each store. The servers
 * and cases are `npm run bench`'s (bench-cases.ts), started the same way with V8's sampling profiler
 * beside them (bench/cpu-profile-probe.mjs); each case is warmed up, then loaded at BENCH_CONNECTIONS for
 * BENCH_PROFILE_SECONDS with the profiler on, and its profile is summarized per answered call: by part
 * (a package, a folder of ours, Node's own modules, GC) and by function (bench/cpu-profile-summary.ts).
 * The .cpuprofile files are kept, for Chrome DevTools' Performance panel.
 *
 * Settings (environment): BENCH_PROFILE_CASES (words a case's name must contain, comma-separated: `myWatchlist,
 * toggling`; every case with a target by default), BENCH_PROFILE_SECONDS (10), BENCH_PROFILE_TOP (15
 * functions), and npm run bench's BENCH_STORES, BENCH_DATABASE_URL and BENCH_CONNECTIONS.
 */
import autocannon from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchCases } from './bench-cases.js';
import { summarizeCpuProfile, type CpuProfile, type ProfileRow } from './cpu-profile-summary.js';
import { createFreshStores } from './fresh-stores.js';
import { initialize, token, watchlistItems } from './requests.js';
import { settings } from './settings.js';
import type { Proc } from './start-process.js';
import { startApp, startBareServer } from './start-servers.js';

const seconds = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const top = Number(process.env.BENCH_PROFILE_TOP ?? 15);
const wanted = process.env.BENCH_PROFILE_CASES?.split(',').map((word) => word.trim());
const profiles = mkdtempSync(path.join(tmpdir(), 'moviedb-profile-'));

/** Sends a command to the server's profiler and, for `stop`, waits for the profile it wrote. */
function profiler(proc: Proc) {
  const send = (line: string) => proc.child.stdin.write(`${line}\n`);
  return {
    start: () => send('start'),
    stop: (file: string) =>
      new Promise<CpuProfile>((resolve) => {
        const written = (chunk: Buffer) => {
          if (!chunk.toString().includes('"cpuProfile"')) return;
          proc.child.stdout.off('data', written);
          resolve(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
        };
        proc.child.stdout.on('data', written);
        send(`stop ${file}`);
      }),
  };
}

const load = (options: autocannon.Options, duration: number) =>
  autocannon({ ...options, duration, connections: settings.connections });

const row = (r: ProfileRow) => ({
  µs: Number(r.microsPerCall.toFixed(1)),
  share: `${(r.share * 100).toFixed(1)}%`,
});

async function profileStore(url: string | undefined): Promise<void> {
  const storeName = url ? 'PostgreSQL' : 'SQLite';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-profile-data-'));
  const stores = createFreshStores(url);
  const probe = ['--import', './bench/cpu-profile-probe.mjs'];
  const procs: Proc[] = [];
  try {
    const bare = await startBareServer();
    const sessions = await startApp('sessions', stores.storeIn(path.join(dataDir, 'sessions')), probe);
    const stateless = await startApp('stateless', stores.storeIn(path.join(dataDir, 'stateless')), probe);
    procs.push(bare, sessions, stateless);
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
    const chosen = cases.filter((c) =>
      wanted ? wanted.some((word) => c.name.includes(word)) : c.target !== undefined,
    );
    for (const [i, c] of chosen.entries()) {
      await load(c.options, 2);
      const file = path.join(profiles, `${storeName}-${i}.cpuprofile`);
      const { start, stop } = profiler(c.proc);
      start();
      const result = await load(c.options, seconds);
      const summary = summarizeCpuProfile(await stop(file), result.requests.total, top);
      console.log(
        `\n${storeName}: ${c.name}: ${result.requests.total} calls, ` +
          `${summary.sampledMicrosPerCall.toFixed(0)} µs sampled per call (${file})`,
      );
      console.table(
        Object.fromEntries(summary.parts.filter((p) => p.share >= 0.005).map((p) => [p.name, row(p)])),
      );
      console.table(Object.fromEntries(summary.functions.map((f) => [f.name, row(f)])));
    }
  } finally {
    for (const proc of procs) proc.child.kill('SIGTERM');
    await Promise.all(
      procs.map((proc) =>
        proc.child.exitCode === null ? new Promise((resolve) => proc.child.once('exit', resolve)) : undefined,
      ),
    );
    await stores.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (settings.stores.includes('sqlite')) await profileStore(undefined);
if (settings.stores.includes('postgres') && settings.databaseUrl) await profileStore(settings.databaseUrl);
console.log(`\nprofiles kept in ${profiles}`);
