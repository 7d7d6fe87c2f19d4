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
 * serve the big catalogue instead of the seed one (seeded once and kept: bench/large-catalogue.ts),
 * BENCH_SETTLE_SECONDS (10) and BENCH_SETTLED_SECONDS (60): when the idle resident sets are read.
 *
 * The parts: settings.ts (the environment), start-servers.ts and start-process.ts (the servers and their
 * probes), bench-cases.ts (what is measured), measure.ts (one case, one round), report-store.ts (the
 * tables and the targets), run-store.ts (all of it on one store).
 */
import { runStore, type StoreSummary } from './run-store.js';
import { settings } from './settings.js';

const summaries: StoreSummary[] = [];
if (settings.stores.includes('sqlite')) summaries.push(await runStore(undefined));
if (settings.stores.includes('postgres') && settings.databaseUrl)
  summaries.push(await runStore(settings.databaseUrl));
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
