/** Every case of `npm run bench` on one store: its servers started, measured in rounds, reported, stopped. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchCases } from './bench-cases.js';
import { createFreshStores } from './fresh-stores.js';
import { prepareLargeCatalogue } from './large-catalogue.js';
import { measure, measureLatency, type Case, type Round, type SingleLatency } from './measure.js';
import { reportStore } from './report-store.js';
import { initialize, token, watchlistItems } from './requests.js';
import { settings } from './settings.js';
import { probe, residentSet, stopProcesses, type Proc } from './start-process.js';
import { SERVER_ENV, startApp, startBareServer } from './start-servers.js';

/** One store's figures for the table of both stores: ratio, p99/p50 and CPU per call of each case. */
export interface StoreSummary {
  store: string;
  cells: Map<string, string>;
  memory: string;
}

export async function runStore(url: string | undefined): Promise<StoreSummary> {
  const storeName = url ? 'PostgreSQL' : 'SQLite';
  console.error(`${storeName}:`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-'));
  const stores = createFreshStores(url);
  const procs: Proc[] = [];
  try {
    // The big catalogue is one store both servers share; otherwise each seeds a fresh one of its own.
    const large =
      settings.catalogue === 'large'
        ? await prepareLargeCatalogue(path.join(dataDir, 'large'), url, SERVER_ENV)
        : undefined;
    const bare = await startBareServer();
    procs.push(bare);
    const sessions = await startApp('sessions', large?.env ?? stores.storeIn(path.join(dataDir, 'sessions')));
    procs.push(sessions);
    const stateless = await startApp(
      'stateless',
      large?.env ?? stores.storeIn(path.join(dataDir, 'stateless')),
    );
    procs.push(stateless);
    const bearer = await token(sessions.port);
    const bearerStateless = await token(stateless.port);
    const init = await initialize(sessions.port, bearer);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const items = await watchlistItems(sessions.port, bearer, settings.connections);
    // Resident sets before any load, as a process monitor reads them (no collection forced first): each
    // server started, signed in, one session open; 10 s later; and once it has sat idle a minute. V8
    // keeps the young generation start-up grew (about 30 MiB) until its memory reducer runs, which it
    // does only once its estimate of the allocation rate is low: with start-up's allocations still in
    // that estimate, about 40 s after the last full collection (docs/benchmarks.md, Memory).
    const rssAt = async () =>
      new Map(await Promise.all(procs.map(async (p) => [p, await residentSet(p)] as const)));
    const startedRss = await rssAt();
    await sleep(settings.settleSeconds * 1000);
    const idleRss = await rssAt();
    await sleep((settings.settledSeconds - settings.settleSeconds) * 1000);
    const settledRss = await rssAt();

    const cases = benchCases({
      store: url ? 'postgres' : 'sqlite',
      bare,
      sessions,
      stateless,
      bearer,
      bearerStateless,
      sessionId,
      items,
    });
    const rounds = new Map<Case, Round[]>(cases.map((c) => [c, []]));
    for (let round = 0; round < settings.rounds; round++) {
      for (const c of cases) rounds.get(c)!.push(await measure(c, round === 0));
      console.error(`round ${round + 1} of ${settings.rounds} done`);
    }
    const latencies = new Map<Case, SingleLatency>();
    for (const c of cases.filter((c) => c.latency)) latencies.set(c, await measureLatency(c));

    // What an idle, never-deleted session costs until eviction.
    const before = await probe(sessions);
    for (let i = 0; i < settings.idleSessions; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => (await initialize(sessions.port, bearer)).text()),
      );
    }
    const perIdleSession = ((await probe(sessions)).heapUsed - before.heapUsed) / settings.idleSessions;

    const { cells, memory } = reportStore({
      storeName,
      largeCatalogue: large?.where,
      cases,
      rounds,
      latencies,
      perIdleSession,
      startedRss,
      idleRss,
      settledRss,
      servers: { bare, sessions, stateless },
    });
    return { store: storeName, cells, memory };
  } finally {
    await stopProcesses(procs);
    await stores.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
