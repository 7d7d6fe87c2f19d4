/**
 * `moviedb-mcp tools`: the catalogue as an agent meets it, without opening the database or a port:
 * each tool with its kind, who may call it (and so who sees it in tools/list), the scopes its token
 * needs, the size of its tools/list entry in characters and estimated tokens, and whether a successful
 * result's text block is the serialized JSON or the tool's short rendering (tools.json `text`).
 * `tools --lock` writes the tool lock (src/mcp/tool-lock.ts) of that catalogue: review and commit it.
 */
import { loadConfig, type Config, type LoadConfigOptions } from '../config.js';
import { createExecutor } from '../graphql/executor.js';
import { buildSchema } from '../graphql/schema.js';
import { createLogger } from '../logger.js';
import { lockOf, writeLock } from '../mcp/tool-lock.js';
import { loadOperations, type CuratedOperation } from '../operations/load-operations.js';
import { createCatalogue } from '../operations/operation-catalogue.js';
import { CHARS_PER_TOKEN, sizeOf } from '../operations/tool-size.js';
import { describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';

const CALLER = { anyone: 'anyone', USER: 'signed in', ADMIN: 'admin' } as const;

/** The table of `tools` (and of `check`), one line a tool, then the total. */
export function formatToolTable(operations: readonly CuratedOperation[]): string {
  let chars = 0;
  const rows = operations.map((op) => {
    const size = sizeOf(op.tool);
    chars += size.chars;
    return [
      op.toolName,
      op.kind,
      CALLER[op.requiredRole ?? 'anyone'],
      op.requiredScopes.join(',') || '-',
      String(size.chars),
      String(size.tokens),
      op.renderText ? 'rendered' : 'json',
    ];
  });
  const header = ['tool', 'kind', 'caller', 'scopes', 'chars', '~tokens', 'text'];
  const total = ['total', '', '', '', String(chars), String(Math.ceil(chars / CHARS_PER_TOKEN)), ''];
  const table = [header, ...rows, total];
  const numeric = new Set([4, 5]);
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    `  ${row.map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')}`.trimEnd();
  return [
    ...table.map(line),
    `(each tools/list entry as JSON; tokens estimated at ${CHARS_PER_TOKEN} characters each)`,
  ].join('\n');
}

export async function tools(args: string[] = [], options: LoadConfigOptions = {}): Promise<number> {
  const unknown = args.find((arg) => arg !== '--lock');
  if (unknown !== undefined) {
    console.error(`Unknown option for tools: ${unknown} (moviedb-mcp tools [--lock])`);
    return EXIT.USAGE;
  }
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, options);
    const executor = createExecutor(buildSchema(), config.graphql, () => undefined);
    const operations = loadOperations(executor, config.operations.dir);
    console.log(`${operations.length} tools from ${config.operations.dir}:`);
    console.log(formatToolTable(operations));
    if (args.includes('--lock')) {
      const lock = await lockOf(createCatalogue(operations), createLogger('silent'));
      console.log(`Tool lock written: ${writeLock(config.operations.dir, lock)} (review and commit it)`);
    }
    return EXIT.OK;
  } catch (error) {
    const failure = describeFailure(error, config);
    // Schema and operation errors are data errors: the files are wrong, not the environment.
    console.error(failure.message);
    return failure.exitCode === EXIT.SOFTWARE && config ? EXIT.DATA : failure.exitCode;
  }
}
