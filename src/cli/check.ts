/**
 * `moviedb-mcp check`: validates the configuration, the schema and every curated operation exactly as
 * start-up does, without opening the database or a port, and prints each tool with the size of its
 * tools/list entry (what a client puts in a model's context) in characters and estimated tokens.
 */
import { loadConfig, type Config } from '../config.js';
import { createExecutor } from '../graphql/executor.js';
import { buildSchema } from '../graphql/schema.js';
import { loadOperations } from '../operations/load-operations.js';
import { describeDatabase, describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';

/** About four characters of English or JSON per token for current tokenizers: an estimate, not a count. */
const CHARS_PER_TOKEN = 4;

export async function check(): Promise<number> {
  let config: Config | undefined;
  try {
    config = loadConfig();
    console.log('Configuration: ok');
    console.log(`  listen     ${config.host}:${config.port} (${config.nodeEnv})`);
    console.log(`  store      ${describeDatabase(config)}`);
    console.log(
      `  MCP        ${config.mcp.mode}, auth ${config.mcp.auth}${config.mcp.publicUrl ? `, public URL ${config.mcp.publicUrl}` : ''}`,
    );
    console.log(
      `  signing    ${config.jwt.secret ? 'JWT_SECRET' : `generated development key in ${config.dataDir}`}`,
    );
    const executor = createExecutor(buildSchema(), config.graphql, () => undefined);
    console.log('Schema: ok');
    const operations = loadOperations(executor, config.operationsDir);
    console.log(`Operations: ok, ${operations.length} tools from ${config.operationsDir}`);
    const rows = operations.map((op) => {
      const chars = JSON.stringify(op.tool).length;
      return { name: op.toolName, kind: op.kind, chars, tokens: Math.ceil(chars / CHARS_PER_TOKEN) };
    });
    const total = rows.reduce(
      (sum, row) => ({ chars: sum.chars + row.chars, tokens: sum.tokens + row.tokens }),
      {
        chars: 0,
        tokens: 0,
      },
    );
    const width = Math.max(4, ...rows.map((row) => row.name.length));
    console.log(
      `  ${'tool'.padEnd(width)}  ${'kind'.padEnd(8)}  ${'chars'.padStart(6)}  ${'~tokens'.padStart(7)}`,
    );
    for (const row of rows) {
      console.log(
        `  ${row.name.padEnd(width)}  ${row.kind.padEnd(8)}  ${String(row.chars).padStart(6)}  ${String(row.tokens).padStart(7)}`,
      );
    }
    console.log(
      `  ${'total'.padEnd(width)}  ${''.padEnd(8)}  ${String(total.chars).padStart(6)}  ${String(total.tokens).padStart(7)}`,
    );
    console.log(
      `(size of each tools/list entry as JSON; tokens estimated at ${CHARS_PER_TOKEN} characters each)`,
    );
    return EXIT.OK;
  } catch (error) {
    const failure = describeFailure(error, config);
    // Schema errors are data errors too: the files are wrong, not the environment.
    const exitCode = failure.exitCode === EXIT.SOFTWARE && config ? EXIT.DATA : failure.exitCode;
    console.error(failure.message);
    return exitCode;
  }
}
