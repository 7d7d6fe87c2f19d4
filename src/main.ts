#!/usr/bin/env node
/** The moviedb-mcp command: read .env, parse argv, dispatch to a command in src/cli/, exit with its code. */
import type { LoadConfigOptions } from './config.js';
import { EXIT } from './cli/exit-codes.js';
import { HELP } from './cli/help.js';
import { loadEnvFile } from './cli/load-env-file.js';
import { packageInfo } from './package-info.js';
import { holdOptimizingCompiler } from './cli/optimizing-compiler.js';

// Before any command's module loads: start-up code is not worth optimizing (serve lets go once listening).
// The other commands (token, check, migrate, tools) run to their end unoptimized: they are start-up.
holdOptimizingCompiler();

type Command = (args: string[], options: LoadConfigOptions) => Promise<number>;

/**
 * Each command's module is imported only when it runs: `--help`, `--version` and a mistyped command
 * answer without loading the server (about a second of CPU), and `token` without the MCP layer.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./cli/serve.js')).serve,
  token: async () => (await import('./cli/token.js')).token,
  check: async () => (await import('./cli/check.js')).check,
  tools: async () => (await import('./cli/tools.js')).tools,
  migrate: async () => (await import('./cli/migrate.js')).migrate,
};

async function main(argv: string[]): Promise<number> {
  const [name = 'serve', ...args] = argv;
  if (['-h', '--help', 'help'].includes(name) || args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return EXIT.OK;
  }
  if (name === '-v' || name === '--version') {
    console.log(packageInfo().version);
    return EXIT.OK;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`Unknown command or option: ${name}\n\n${HELP}`);
    return EXIT.USAGE;
  }
  const envFile = loadEnvFile();
  if (envFile.warning) console.error(`warning: ${envFile.warning}`);
  // The file's keys are checked as settings too: a misspelt one there is refused like one in the environment.
  const command = await load();
  return command(args, { envFileKeys: envFile.keys, envFileProblems: envFile.problems });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('moviedb-mcp failed:', error instanceof Error ? error.message : error);
    process.exit(EXIT.SOFTWARE);
  },
);
