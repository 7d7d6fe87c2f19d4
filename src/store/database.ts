/**
 * Opens the database: embedded SQLite by default, PostgreSQL when a URL is configured. Both are migrated
 * (and seeded on first start) before the handle is returned, so callers always see a ready schema.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type Dialect as KyselyDialect,
  type LogEvent,
  type SqliteDialectConfig,
} from 'kysely';
import { loadPg } from './load-pg.js';
import type { Database } from './tables.js';
import { OWNED_ROW_NOTICES_SETTING } from './change-notices.js';
import { withOwnSchemaIntrospection } from './own-schema-introspection.js';
import { createMigrationProvider } from './migrations.js';
import { createStatementNames, nameStatementsOf } from './named-statements.js';
import {
  watchPostgresAccountChanges,
  watchSqliteAccountChanges,
  type AccountChanges,
} from './account-changes.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  dataDir: string;
  url?: string;
  schema?: string;
  poolSize: number;
  /** PostgreSQL: the server cancels a statement (and ends a transaction left idle) after this long. */
  statementTimeoutMs?: number;
  seedFile: string;
  /** Called with every SQL statement run; tests use it to count queries and to explain them. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Called after every statement with its timing and outcome (traces: src/telemetry/trace-queries.ts). */
  onQueryEvent?: (event: LogEvent, dialect: Dialect) => void;
  /** An idle pooled connection failed (the database restarted or the network dropped). */
  onConnectionError?: (error: Error) => void;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  /** Starts watching accounts for deletions and role changes (on PostgreSQL, a connection of its own). */
  watchAccountChanges(): AccountChanges;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  // Migrations and the first seed may run longer than any request may: they get a connection of their
  // own, without the request timeouts, before the pool that serves requests opens. That pool does not
  // migrate again: even with nothing to do, the migrator waits for its lock (one lock per database,
  // whatever the schema), and a short statement_timeout cancelled that wait while another process migrated.
  const migratedApart = Boolean(options.url && options.statementTimeoutMs);
  if (migratedApart) {
    const migration = await openDatabase({ ...options, statementTimeoutMs: undefined, poolSize: 1 });
    await migration.close();
  }
  const { dialect, driver, schema, watchAccountChanges } = options.url
    ? await openPostgres(options.url, options)
    : await openSqlite(options.dataDir);
  const { onQuery, onQueryEvent } = options;
  // Without an observer kysely neither times nor logs statements.
  const db = new Kysely<Database>({
    dialect: driver,
    ...(onQuery || onQueryEvent
      ? {
          log: (event: LogEvent) => {
            onQuery?.(event.query.sql, event.query.parameters);
            onQueryEvent?.(event, dialect);
          },
        }
      : {}),
  });
  try {
    if (!migratedApart) await migrate(db, dialect, options.seedFile, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    watchAccountChanges,
    close: () => db.destroy(),
  };
}

/** Page cache of the one SQLite connection, in KiB. */
const SQLITE_CACHE_KIB = 64 * 1024;

interface OpenedDriver {
  driver: KyselyDialect;
  dialect: Dialect;
  /** PostgreSQL: the schema the tables are in (kysely's bookkeeping goes beside them). */
  schema?: string;
  watchAccountChanges(): AccountChanges;
}

async function openSqlite(dataDir: string): Promise<OpenedDriver> {
  // Imported only for a SQLite store, as pg only for PostgreSQL: its native library stays unmapped.
  const { default: SqliteDatabase } = await import('better-sqlite3');
  mkdirSync(dataDir, { recursive: true });
  const file = new SqliteDatabase(path.join(dataDir, 'moviedb.sqlite'));
  // WAL lets readers run beside a writer; the busy timeout makes a second writer wait, not fail.
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  // SQLite's default page cache is 2 MiB: the large catalogue's hot indexes then come from the operating
  // system on every query (a third of a title search's time). It grows only as pages are read.
  file.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  return {
    driver: new SqliteDialect({ database: withStatementCache(file) }),
    dialect: 'sqlite',
    watchAccountChanges: () => watchSqliteAccountChanges(file),
  };
}

/** Distinct SQL texts whose prepared statements are kept; our queries have a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely prepares every statement anew; preparing is a large share of a small query's cost. The same
 * SQL text gets the same prepared statement back (kysely runs one statement at a time on this single
 * connection, so a statement is never in use twice at once).
 */
function withStatementCache(file: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => file.close(),
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (!statement) {
        statement = file.prepare(sqlText);
        statements.set(sqlText, statement);
        if (statements.size > STATEMENT_CACHE_SIZE)
          statements.delete(statements.keys().next().value as string);
      }
      return statement;
    },
  } as SqliteDialectConfig['database'];
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<OpenedDriver> {
  const pg = await loadPg();
  const schema = options.schema;
  if (schema) {
    // The schema must exist before pooled connections put it first on their search path. `if not
    // exists` does not make two replicas starting together safe (the loser fails on the catalogue's
    // unique index), so they take turns under a lock named after the schema.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [`moviedb schema ${schema}`]);
      await client.query(`create schema if not exists "${schema}"`);
      await client.query('commit');
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    // A frozen or abandoned query must not hold a pooled connection (or a transaction's locks) forever.
    ...(options.statementTimeoutMs
      ? {
          statement_timeout: options.statementTimeoutMs,
          idle_in_transaction_session_timeout: options.statementTimeoutMs,
        }
      : {}),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A pooled connection can fail at any time (a database restart, a dropped link). Unhandled, that
  // 'error' event would crash the process: report it once from the client, and let the pool (which
  // re-emits idle clients' errors) discard the client so the next query opens a fresh one. Work in
  // flight on that client fails through its own promise.
  const names = createStatementNames();
  pool.on('connect', (client) => {
    // This process announces its own watch-list writes after they commit (account-changes.ts), so the
    // trigger does not notify from inside them (change-notices.ts says why). Queued before any query
    // the pool hands this client for; should it fail, the trigger notifies as before: a notice twice.
    client.query(`set ${OWNED_ROW_NOTICES_SETTING} = 'off'`).catch(() => undefined);
    nameStatementsOf(client, names);
    client.on('error', (error) => options.onConnectionError?.(error));
  });
  pool.on('error', () => undefined);
  // Without DATABASE_SCHEMA the tables go where the connection's search path puts them (the role, the
  // database or the URL's options may set it: not always `public`); the migrations' bookkeeping and the
  // change feed must name that same schema. Asked once, here, for both.
  const tables =
    schema ??
    (await pool.query<{ name: string | null }>('select current_schema() as name')).rows[0]?.name ??
    'public';
  return {
    driver: new PostgresDialect({ pool }),
    dialect: 'postgres',
    schema: tables,
    watchAccountChanges: () =>
      watchPostgresAccountChanges(url, tables, { onConnectionError: options.onConnectionError }),
  };
}

/**
 * `migrationSchema` pins kysely's bookkeeping tables to our own PostgreSQL schema: without it, kysely
 * takes a migration table in any other schema of the database for ours and then fails to lock it.
 */
async function migrate(
  db: Kysely<Database>,
  dialect: Dialect,
  seedFile: string,
  migrationSchema: string | undefined,
): Promise<void> {
  const migrator = new Migrator({
    db: migrationSchema ? withOwnSchemaIntrospection(db, migrationSchema) : db,
    provider: createMigrationProvider(dialect, seedFile),
    ...(migrationSchema ? { migrationTableSchema: migrationSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // The cause is kept so a start-up report can say why (ECONNREFUSED, a wrong password, …).
    throw new Error(
      `Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
