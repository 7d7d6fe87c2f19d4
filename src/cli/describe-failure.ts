/**
 * Turns a failure at start-up into one sentence a person can act on, and the exit code for it. Database
 * failures name host, port, user and database (never the password); a busy port names the port and what
 * to do; anything else is reported by its message alone.
 */
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { FileAccessError } from '../file-access-error.js';
import { ToolLockError } from '../mcp/tool-lock.js';
import { OperationCatalogueError } from '../operations/load-operations.js';
import { codeOf } from '../store/db-errors.js';
import { SeedFileError } from '../store/seed.js';
import { EXIT } from './exit-codes.js';

export interface Failure {
  message: string;
  exitCode: number;
}

/** Network and PostgreSQL codes that mean "the database is not there or refused us". */
const DATABASE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user (pg_hba.conf)',
  '3D000': 'the database does not exist',
  '57P03': 'the server is starting up or shutting down',
};

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 10;) {
    chain.push(e);
    if (e instanceof AggregateError) chain.push(...e.errors);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

/** Where the database is, without the password. */
export function describeDatabase(config: Pick<Config, 'database'>): string {
  if (!config.database.url) return `SQLite in ${config.database.dataDir}/moviedb.sqlite`;
  try {
    const url = new URL(config.database.url);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default)';
    const user = decodeURIComponent(url.username) || '(default)';
    return `PostgreSQL at ${url.hostname || 'localhost'}:${url.port || '5432'}, database ${database}, user ${user}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL could not be parsed)';
  }
}

export function describeFailure(error: unknown, config?: Config): Failure {
  if (error instanceof ConfigError) {
    return {
      message: `${error.message}\nFix these settings (environment or .env) and start again; see .env.example.`,
      exitCode: EXIT.CONFIG,
    };
  }
  if (error instanceof OperationCatalogueError || error instanceof ToolLockError)
    return { message: error.message, exitCode: EXIT.DATA };
  if (error instanceof FileAccessError) return { message: error.message, exitCode: EXIT.IO_ERROR };
  const chain = causes(error);
  // The first start's seed migration wraps it; its message alone says what to fix.
  const seedError = chain.find((e) => e instanceof SeedFileError);
  if (seedError) return { message: (seedError as SeedFileError).message, exitCode: EXIT.DATA };
  const code = chain.map(codeOf).find((c) => c !== undefined);
  const syscall = chain.map((e) => (e as { syscall?: unknown } | null)?.syscall).find(Boolean);
  if (config && syscall === 'listen' && (code === 'EADDRINUSE' || code === 'EACCES')) {
    const where = `${config.host}:${config.port}`;
    return code === 'EADDRINUSE'
      ? {
          message:
            `Port ${config.port} is already in use on ${config.host} (another moviedb-mcp or another program listens on ${where}).\n` +
            `Stop that process, or choose another port: PORT=${config.port + 1} npm start (or PORT in .env).`,
          exitCode: EXIT.UNAVAILABLE,
        }
      : {
          message: `Not allowed to listen on ${where}: ports below 1024 need privileges. Choose PORT=8080 or another port above 1023.`,
          exitCode: EXIT.NO_PERMISSION,
        };
  }
  if (config?.database.url) {
    const reason =
      (code && DATABASE_REASONS[code]) ??
      (chain.some((e) => e instanceof Error && /timeout/i.test(e.message))
        ? 'connection timed out'
        : undefined);
    if (reason) {
      return {
        message:
          `Cannot use the database: ${describeDatabase(config)}: ${reason}${code ? ` (${code})` : ''}.\n` +
          'Check that PostgreSQL is running and reachable, and the DATABASE_HOST/DATABASE_PORT/DATABASE_USER/' +
          'DATABASE_PASSWORD/DATABASE_NAME (or DATABASE_URL) settings.',
        exitCode: EXIT.UNAVAILABLE,
      };
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `moviedb-mcp failed: ${redactUrls(message)}`, exitCode: EXIT.SOFTWARE };
}

/** A driver message could quote a connection URL: never print its password. */
function redactUrls(text: string): string {
  return text.replace(/(\w+:\/\/[^:/@\s]*:)[^@\s]*@/g, '$1[redacted]@');
}
