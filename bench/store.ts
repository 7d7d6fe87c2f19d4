/**
 * npm run bench:store: latency of the store-heavy operations at one connection (no queueing), through the
 * front door: the curated operations POSTed to /graphql of an in-process server, one after another.
 * Runs against the configured store (SQLite in DATA_DIR, or DATABASE_URL and DATABASE_SCHEMA, from the
 * environment or .env), which should hold the large catalogue (`npm run seed:large`).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadEnvFile } from '../src/cli/load-env-file.js';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 30;

const operation = (name: string) =>
  readFileSync(new URL(`../operations/${name}.graphql`, import.meta.url), 'utf8');

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  signedIn?: boolean;
}

const CASES: Case[] = [
  // What any request costs here, whatever the data: the floor the other cases stand on.
  { name: 'floor: { __typename }', query: '{ __typename }' },
  { name: 'recommend (HORROR)', query: operation('RecommendMoviesForMood'), variables: { mood: 'HORROR' } },
  {
    name: 'recommend (THOUGHTFUL, excludeWatched)',
    query: operation('RecommendMoviesForMood'),
    variables: { mood: 'THOUGHTFUL', excludeWatched: true },
    signedIn: true,
  },
  { name: 'summarize (movie 1)', query: operation('SummarizeMovieReviews'), variables: { movieId: '1' } },
  {
    name: 'title search "godfather"',
    query: operation('SearchMovies'),
    variables: { filter: { titleContains: 'godfather' } },
  },
  {
    name: 'title search "harbor"',
    query: operation('SearchMovies'),
    variables: { filter: { titleContains: 'harbor' } },
  },
  {
    name: 'genre page 0 (DRAMA)',
    query: operation('SearchMovies'),
    variables: { filter: { genre: 'DRAMA' }, page: 0 },
  },
  {
    name: 'genre page 600 (DRAMA)',
    query: operation('SearchMovies'),
    variables: { filter: { genre: 'DRAMA' }, page: 600 },
  },
  { name: 'myWatchlist (user)', query: operation('MyWatchlist'), signedIn: true },
];

interface Figures {
  p50: number;
  p99: number;
  best: number;
  /** CPU time of this process per request, ms: server and client (on PostgreSQL, not the database's). */
  cpu: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

async function main(): Promise<number> {
  loadEnvFile();
  // The result cache off: a shared read served from it would time the cache, not the store.
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMITS: 'off',
    RESULT_CACHE_MB: '0',
  });
  const server = await startServer(config);
  try {
    const movies = await server.store.handle.db
      .selectFrom('movies')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(movies.n) < 100_000) console.warn(`Only ${movies.n} movies: run npm run seed:large first.`);

    const post = async (body: string, token?: string) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      });
      return (await response.json()) as { data?: unknown; errors?: { message: string }[] };
    };
    const login = await post(
      JSON.stringify({
        query: 'mutation { login(input: { username: "user", password: "user123" }) { token } }',
      }),
    );
    const token = (login.data as { login: { token: string } }).login.token;

    const body = (c: Case) => JSON.stringify({ query: c.query, variables: c.variables });
    const bearer = (c: Case) => (c.signedIn ? token : undefined);
    for (const c of CASES) {
      const sample = await post(body(c), bearer(c));
      if (sample.errors?.length) throw new Error(`${c.name}: ${sample.errors[0]?.message}`);
    }
    /** One round: every case in turn, so a burst of load elsewhere on the machine hits one round, not one case. */
    const round = async () => {
      const figures = new Map<string, Figures>();
      for (const c of CASES) {
        for (let i = 0; i < WARM_UP; i++) await post(body(c), bearer(c));
        const times: number[] = [];
        const cpuBefore = process.cpuUsage();
        for (let i = 0; i < ITERATIONS; i++) {
          const start = performance.now();
          const answer = await post(body(c), bearer(c));
          times.push(performance.now() - start);
          if (answer.errors?.length) throw new Error(`${c.name}: ${answer.errors[0]?.message}`);
        }
        const cpu = process.cpuUsage(cpuBefore);
        times.sort((a, b) => a - b);
        figures.set(c.name, {
          cpu: (cpu.user + cpu.system) / 1000 / ITERATIONS,
          p50: percentile(times, 50),
          p99: percentile(times, 99),
          best: times[0] as number,
        });
      }
      return figures;
    };
    const rounds: Map<string, Figures>[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round());
    const spread = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)] as number;
      return `${median.toFixed(2)} (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)})`;
    };
    const rows = CASES.map((c) => {
      const figures = rounds.map((r) => r.get(c.name)!);
      return {
        case: c.name,
        'p50 ms: median (min–max) of rounds': spread(figures.map((f) => f.p50)),
        'p99 ms': spread(figures.map((f) => f.p99)),
        // On a machine shared with other work, the fastest request shows what the case costs undisturbed.
        'fastest ms': Math.min(...figures.map((f) => f.best)).toFixed(2),
        // CPU time is not stretched by waiting for a CPU other processes hold, as wall time is.
        'CPU ms/request': spread(figures.map((f) => f.cpu)),
      };
    });
    console.log(
      `\nstore benchmark on ${server.store.handle.dialect} with ${movies.n} movies: ${ROUNDS} rounds of ` +
        `${ITERATIONS} sequential requests per case, one connection, client-side, node ${process.version}`,
    );
    console.table(rows);
    return 0;
  } finally {
    await server.close();
  }
}

process.exitCode = await main();
