/**
 * npm run bench:execution: server CPU per execution of curated operations, in process, without HTTP or
 * MCP: the levers of the execution layer measured where the noise of a shared machine's network
 * benchmark cannot hide them. Each round runs every case both ways, alternating, and the tables give
 * the median CPU µs per call of the rounds and their ratio: operations by graphql-js and compiled by
 * graphql-jit (GRAPHQL_JIT), and the hot statements built by kysely per call and prepared once
 * (src/store/prepared-query.ts).
 *
 * Settings (environment): BENCH_CALLS (2000) per case, engine and round, BENCH_ROUNDS (5),
 * BENCH_DATABASE_URL to run on PostgreSQL (a fresh schema, dropped afterwards) instead of SQLite.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Identity } from '../src/auth/identity.js';
import { ALL_SCOPES } from '../src/auth/identity.js';
import { createOperationCompiler, type JitMode } from '../src/graphql/compile-operation.js';
import { createContext, type ContextDependencies } from '../src/graphql/context.js';
import { createExecutor } from '../src/graphql/executor.js';
import { buildSchema } from '../src/graphql/schema.js';
import { createLogger } from '../src/logger.js';
import { openDatabase } from '../src/store/database.js';
import { createStore } from '../src/store/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const OPERATIONS = path.resolve(import.meta.dirname, '../operations');

const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-'));
const schemaName = `bench_${randomBytes(6).toString('hex')}`;
const handle = await openDatabase({
  dataDir,
  url: DATABASE_URL,
  schema: DATABASE_URL ? schemaName : undefined,
  poolSize: 10,
  seedFile: path.resolve(import.meta.dirname, '../seed/moviedb-seed.json'),
});
const changes = handle.watchAccountChanges();
const store = createStore(
  handle,
  { defaultTimeoutMs: 10_000, failureThreshold: 5, probeIntervalMs: 1000, readRetries: 0 },
  changes,
);
const schema = buildSchema();
const logger = createLogger('silent');
const executors = Object.fromEntries(
  (['off', 'always'] as JitMode[]).map((jit) => [
    jit,
    createExecutor(
      schema,
      { maxDepth: 10, maxCost: 50000, maxFieldAliases: 15 },
      () => undefined,
      undefined,
      undefined,
      createOperationCompiler(schema, { jit }),
    ),
  ]),
);
const user = await store.accounts.findByUsername('user');
const viewer: Identity = {
  subject: String(user!.id),
  userId: user!.id,
  role: 'USER',
  scopes: ALL_SCOPES,
  expiresAt: Date.now() / 1000 + 3600,
};
const deps = {
  store,
  tokens: undefined,
  limits: { admitOperation: async () => ({ allowed: true }) },
} as unknown as ContextDependencies;
const watchlist = await store.watchlist.ofUser(user!.id);
let toggle = false;
const cases: { name: string; file: string; variables: () => Record<string, unknown> }[] = [
  { name: 'myWatchlist', file: 'MyWatchlist', variables: () => ({}) },
  {
    name: 'setWatchStatus (toggling)',
    file: 'SetWatchStatus',
    variables: () => {
      toggle = !toggle;
      return { itemId: String(watchlist[0]!.id), status: toggle ? 'WATCHED' : 'WANT_TO_WATCH' };
    },
  },
  {
    name: 'recommendMoviesForMood (no cache)',
    file: 'RecommendMoviesForMood',
    variables: () => ({ mood: 'HORROR' }),
  },
  { name: 'getMovie', file: 'GetMovie', variables: () => ({ id: '1' }) },
];

/** CPU µs per call of `run`, after a warm-up. */
async function cpuPerCall(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await run();
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / CALLS;
}

async function measure(jit: string, file: string, variables: () => Record<string, unknown>): Promise<number> {
  const executor = executors[jit]!;
  const document = executor.parse(readFileSync(path.join(OPERATIONS, `${file}.graphql`), 'utf8'));
  const run = async () => {
    const result = await executor.run({
      document,
      variables: variables(),
      context: createContext(deps, { viewer, logger, requestId: 'bench' }),
    });
    if (result.errors) throw new Error(`${file}: ${JSON.stringify(result.errors)}`);
  };
  return cpuPerCall(run);
}

const { db } = handle;
const tenIds = Array.from({ length: 10 }, (_, i) => i + 1);
const itemId = watchlist[0]!.id;
const statements: { name: string; built: () => Promise<unknown>; prepared: () => Promise<unknown> }[] = [
  {
    name: 'watch list of a user',
    built: () =>
      db.selectFrom('watchlist_items').selectAll().where('user_id', '=', user!.id).orderBy('id').execute(),
    prepared: () => store.watchlist.ofUser(user!.id),
  },
  {
    name: '10 movies by id (loader)',
    built: () => db.selectFrom('movies').selectAll().where('id', 'in', tenIds).execute(),
    prepared: () => store.catalogue.moviesByIds(tenIds),
  },
  {
    name: 'role of an account (account check)',
    built: () => db.selectFrom('users').select('role').where('id', '=', user!.id).executeTakeFirst(),
    prepared: () => store.accounts.roleById(user!.id),
  },
  {
    name: 'set a watch status',
    built: () =>
      db
        .updateTable('watchlist_items')
        .set({ status: 'WATCHED' })
        .where('id', '=', itemId)
        .where('user_id', '=', user!.id)
        .returningAll()
        .executeTakeFirst(),
    prepared: () => store.watchlist.setStatus(user!.id, itemId, 'WATCHED', db),
  },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const samples = new Map<string, { off: number[]; on: number[] }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, file, variables } of cases) {
    const entry = samples.get(name) ?? { off: [], on: [] };
    samples.set(name, entry);
    entry.off.push(await measure('off', file, variables));
    entry.on.push(await measure('always', file, variables));
  }
}
const statementSamples = new Map<string, { built: number[]; prepared: number[] }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, built, prepared } of statements) {
    const entry = statementSamples.get(name) ?? { built: [], prepared: [] };
    statementSamples.set(name, entry);
    entry.built.push(await cpuPerCall(built));
    entry.prepared.push(await cpuPerCall(prepared));
  }
}
console.log(
  `execution CPU per call, ${ROUNDS} rounds of ${CALLS} calls, ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, node ${process.version}`,
);
console.table(
  [...samples].map(([name, { off, on }]) => ({
    case: name,
    'graphql-js µs': median(off).toFixed(0),
    'graphql-jit µs': median(on).toFixed(0),
    'speed-up': (median(off) / median(on)).toFixed(2),
  })),
);
console.table(
  [...statementSamples].map(([name, { built, prepared }]) => ({
    statement: name,
    'built per call µs': median(built).toFixed(0),
    'prepared µs': median(prepared).toFixed(0),
    'speed-up': (median(built) / median(prepared)).toFixed(2),
  })),
);
await changes.close();
await handle.close();
rmSync(dataDir, { recursive: true, force: true });
if (DATABASE_URL) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists "${schemaName}" cascade`);
  await client.end();
}
