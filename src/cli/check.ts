/**
 * `moviedb-mcp check`: validates the configuration, the schema and every curated operation exactly as
 * start-up does, without opening the database or a port, and prints each tool as `moviedb-mcp tools`
 * does: who may call it and the size of its tools/list entry (what a client puts in a model's context).
 * Then it compares the tools/list of each locked revision with the tool lock (src/mcp/tool-lock.ts) and
 * fails naming each tool and field that differs, so CI refuses a tool list nobody approved.
 */
import { loadConfig, type Config, type LoadConfigOptions } from '../config.js';
import { createExecutor } from '../graphql/executor.js';
import { buildSchema } from '../graphql/schema.js';
import { createLogger } from '../logger.js';
import { assertMatchesLock, LOCK_FILE } from '../mcp/tool-lock.js';
import { loadOperations } from '../operations/load-operations.js';
import { createCatalogue } from '../operations/operation-catalogue.js';
import { describeDatabase, describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';
import { formatToolTable } from './tools.js';

export async function check(_args: string[] = [], options: LoadConfigOptions = {}): Promise<number> {
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, options);
    console.log('Configuration: ok');
    console.log(`  listen     ${config.host}:${config.port} (${config.nodeEnv})`);
    console.log(`  store      ${describeDatabase(config)}`);
    console.log(
      `  MCP        ${config.mcp.mode}, auth ${config.mcp.auth}${config.mcp.publicUrl ? `, public URL ${config.mcp.publicUrl}` : ''}`,
    );
    console.log(
      `  signing    ${config.jwt.secret ? 'JWT_SECRET' : `generated development key in ${config.database.dataDir}`}`,
    );
    const executor = createExecutor(buildSchema(), config.graphql, () => undefined);
    console.log('Schema: ok');
    const operations = loadOperations(executor, config.operations.dir);
    console.log(`Operations: ok, ${operations.length} tools from ${config.operations.dir}`);
    console.log(formatToolTable(operations));
    await assertMatchesLock(createCatalogue(operations), config.operations.dir, createLogger('silent'));
    console.log(`Tool lock: ok, ${LOCK_FILE} matches`);
    return EXIT.OK;
  } catch (error) {
    const failure = describeFailure(error, config);
    // Schema errors are data errors too: the files are wrong, not the environment.
    const exitCode = failure.exitCode === EXIT.SOFTWARE && config ? EXIT.DATA : failure.exitCode;
    console.error(failure.message);
    return exitCode;
  }
}
