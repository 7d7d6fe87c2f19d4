/**
 * The big catalogue for `BENCH_CATALOGUE=large`: seeding it takes a minute or more (scripts/seed-large.ts:
 * 55 to 82 s on SQLite, 264 s on PostgreSQL, on the loaded 2-core machine), so it is seeded once into a
 * store kept between runs and reused. Each run calls the seed script, which migrates and then finds the
 * catalogue there and adds nothing (4 to 5 s), so a cache made before a new migration is brought up to date.
 *
 * - SQLite: the cache is a data directory (BENCH_CACHE_DIR, default the system temp directory's
 *   `moviedb-bench-large`); each run copies its file, so what a run writes never reaches the next run.
 * - PostgreSQL: a schema of BENCH_DATABASE_URL kept between runs (BENCH_LARGE_SCHEMA, default
 *   `bench_large`); the servers use it in place (the write case toggles one watch-list entry's status).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/** The store settings the benchmarked servers get. */
export interface LargeStore {
  env: Record<string, string>;
  /** Where the cached catalogue is, for the report. */
  where: string;
}

const SQLITE_FILE = 'moviedb.sqlite';

function seed(env: Record<string, string>): Promise<void> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed-large.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its progress and outcome go to stderr, beside the benchmark's own progress, not into the report.
  child.stdout.pipe(process.stderr);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (code !== 0) return reject(new Error(`npm run seed:large exited with ${code} after ${seconds} s`));
      console.error(`large catalogue ready after ${seconds} s`);
      resolve();
    });
  });
}

/**
 * Seeds the cached catalogue if it is not there yet, and returns the settings that serve it: for SQLite
 * a copy in `runDir`, for PostgreSQL the cached schema itself.
 */
export async function prepareLargeCatalogue(
  runDir: string,
  databaseUrl: string | undefined,
  serverEnv: Record<string, string>,
): Promise<LargeStore> {
  if (databaseUrl) {
    const schema = process.env.BENCH_LARGE_SCHEMA ?? 'bench_large';
    await seed({ ...serverEnv, DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema });
    return { env: { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema }, where: `schema ${schema}` };
  }
  const cacheDir = process.env.BENCH_CACHE_DIR ?? path.join(tmpdir(), 'moviedb-bench-large');
  await seed({ ...serverEnv, DATA_DIR: cacheDir });
  // The seed script closed the database, which checkpoints its WAL into the file: the file is all of it.
  mkdirSync(runDir, { recursive: true });
  copyFileSync(path.join(cacheDir, SQLITE_FILE), path.join(runDir, SQLITE_FILE));
  return { env: { DATA_DIR: runDir }, where: path.join(cacheDir, SQLITE_FILE) };
}
