/** `moviedb-mcp migrate`: bring the database schema (and, on first run, the seed data) up to date, then exit. */
import { loadConfig, type Config, type LoadConfigOptions } from '../config.js';
import { openDatabase } from '../store/database.js';
import { describeDatabase, describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';

export async function migrate(_args: string[] = [], options: LoadConfigOptions = {}): Promise<number> {
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, options);
    const handle = await openDatabase(config.database);
    await handle.close();
    console.log(`Migrated: ${describeDatabase(config)} is up to date.`);
    return EXIT.OK;
  } catch (error) {
    const failure = describeFailure(error, config);
    console.error(failure.message);
    return failure.exitCode;
  }
}
