/**
 * npm run seed:large: grows the configured store (SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL and
 * DATABASE_SCHEMA; the environment or .env, as the server reads them) to the large catalogue of
 * scripts/large-catalogue.ts. Migrates and seeds first, like a server start. Idempotent.
 */
import { performance } from 'node:perf_hooks';
import cliProgress from 'cli-progress';
import { describeDatabase, describeFailure } from '../src/cli/describe-failure.js';
import { loadEnvFile } from '../src/cli/load-env-file.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase } from '../src/store/database.js';
import {
  GENERATED_PASSWORD,
  LARGE_CATALOGUE,
  seedLargeCatalogue,
  type LargeTable,
  type SeedProgress,
} from './large-catalogue.js';

/** A bar in a terminal; otherwise a plain line at every tenth, so CI logs stay readable. */
function createProgress(): SeedProgress & { stop(): void } {
  let total = 0;
  let done = 0;
  if (process.stdout.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: ' {bar} {percentage}% | {value}/{total} rows | {table} | {duration}s', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (rows) => bar.start(rows, 0, { table: '' }),
      advance: (table: LargeTable, rows) => bar.increment(rows, { table }),
      stop: () => bar.stop(),
    };
  }
  let reported = 0;
  return {
    start: (rows) => (total = rows),
    advance(table, rows) {
      done += rows;
      const tenth = Math.floor((done / total) * 10);
      if (tenth > reported) {
        reported = tenth;
        console.log(`${tenth * 10}% (${done} of ${total} rows, now ${table})`);
      }
    },
    stop() {},
  };
}

async function main(): Promise<number> {
  const envFile = loadEnvFile();
  if (envFile.warning) console.error(`warning: ${envFile.warning}`);
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, { envFileKeys: envFile.keys });
    const where = describeDatabase(config);
    console.log(
      `Large catalogue into ${where}${config.database.schema ? `, schema ${config.database.schema}` : ''}`,
    );
    const started = performance.now();
    // No statement timeout: the one transaction that writes everything runs for a while.
    const handle = await openDatabase({
      ...config.database,
      poolSize: 1,
    });
    const progress = createProgress();
    try {
      const outcome = await seedLargeCatalogue(handle.db, handle.dialect, LARGE_CATALOGUE, progress);
      progress.stop();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (!outcome.added) {
        console.log(`Nothing added: ${outcome.reason}.`);
      } else {
        const rows = Object.entries(outcome.rows).map(([table, n]) => `${n} ${table}`);
        console.log(`Added ${rows.join(', ')} in ${seconds} s.`);
        console.log(`Generated users (viewer00001 …) sign in with the password "${GENERATED_PASSWORD}".`);
      }
    } finally {
      progress.stop();
      await handle.close();
    }
    return 0;
  } catch (error) {
    const failure = describeFailure(error, config);
    console.error(failure.message);
    return failure.exitCode;
  }
}

process.exitCode = await main();
