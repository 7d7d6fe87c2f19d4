#!/usr/bin/env node
/** The moviedb-mcp command: read .env, parse argv, dispatch to a command in src/cli/, exit with its code. */
import type { LoadConfigOptions } from './config.js';
import { check } from './cli/check.js';
import { EXIT } from './cli/exit-codes.js';
import { HELP } from './cli/help.js';
import { loadEnvFile } from './cli/load-env-file.js';
import { migrate } from './cli/migrate.js';
import { packageInfo } from './package-info.js';
import { serve } from './cli/serve.js';
import { token } from './cli/token.js';
import { tools } from './cli/tools.js';

const COMMANDS: Record<string, (args: string[], options: LoadConfigOptions) => Promise<number>> = {
  serve,
  token,
  check,
  tools,
  migrate,
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
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command or option: ${name}\n\n${HELP}`);
    return EXIT.USAGE;
  }
  const envFile = loadEnvFile();
  if (envFile.warning) console.error(`warning: ${envFile.warning}`);
  // The file's keys are checked as settings too: a misspelt one there is refused like one in the environment.
  return command(args, { envFileKeys: envFile.keys, envFileProblems: envFile.problems });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('moviedb-mcp failed:', error instanceof Error ? error.message : error);
    process.exit(EXIT.SOFTWARE);
  },
);
