/**
 * The one way to write (every mutation goes through it): a transaction that checks the caller's signal
 * before it commits, so a caller that gave up (cancelled, or past its deadline) never has its write land
 * afterwards, and that records when a commit is under way, so a deadline answer can say whether a change
 * may have been applied.
 */
import { sql, type Kysely } from 'kysely';
import { AppError } from '../errors.js';
import type { DatabaseHandle } from './database.js';
import { isTransientStoreError } from './db-errors.js';
import type { Database } from './tables.js';

/** How far the writes of one request got: nothing sent to commit, a commit sent, a commit acknowledged. */
export type CommitPhase = 'none' | 'committing' | 'committed';

export interface WriteGuard {
  /** Aborted when the caller stopped waiting; checked before the transaction begins and before it commits. */
  signal?: AbortSignal;
  /** Updated as commits go out and come back (the GraphQL context carries one per request). */
  execution?: { commit: CommitPhase };
  /** Something to record first in the request's first write transaction (an idempotency key). */
  reservation?: Reservation;
}

/**
 * A row the first write transaction of a request inserts before its own work, so it commits or rolls
 * back with that work: a concurrent repeat holding the same reservation fails there, before writing.
 */
export interface Reservation {
  reserve(trx: Kysely<Database>): Promise<void>;
  /** How far the transaction holding the reservation got ('none' until one holds it, or after a rollback). */
  phase: CommitPhase;
}

/**
 * Runs `work` in one transaction and commits it unless the guard's signal has aborted. SQLite gets
 * BEGIN IMMEDIATE so the write lock is taken up front (a deferred transaction that upgrades later can fail
 * with SQLITE_BUSY under contention).
 */
export async function writeTransaction<T>(
  handle: Pick<DatabaseHandle, 'db' | 'dialect'>,
  guard: WriteGuard,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  guard.signal?.throwIfAborted();
  // Only the request's first write holds the reservation; later writes of the same request are under it.
  const reservation = guard.reservation?.phase === 'none' ? guard.reservation : undefined;
  const advance = (phase: CommitPhase) => {
    if (guard.execution) guard.execution.commit = phase;
    if (reservation) reservation.phase = phase;
  };
  return handle.db.connection().execute(async (connection) => {
    await (handle.dialect === 'sqlite' ? sql`begin immediate` : sql`begin`).execute(connection);
    let result: T;
    try {
      await reservation?.reserve(connection);
      result = await work(connection);
      guard.signal?.throwIfAborted();
    } catch (error) {
      // The connection may be the thing that failed; the original error is the one worth reporting.
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
    advance('committing');
    try {
      await sql`commit`.execute(connection);
    } catch (error) {
      throw commitFailure(error);
    }
    advance('committed');
    return result;
  });
}

/**
 * A write that is one statement, which commits on its own: sent alone, it is one statement where begin,
 * the statement and commit are three (on PostgreSQL one round trip; on SQLite it takes the write lock
 * itself, waiting out the busy timeout as begin immediate does). The signal is checked before it is
 * sent; once sent it is its own commit, so a deadline from then on says the change may have been applied
 * (the transaction's answer once its commit was sent). A request's write under an idempotency key
 * reservation still takes writeTransaction, so the reservation commits or rolls back with it.
 */
export async function writeStatement<T>(
  handle: Pick<DatabaseHandle, 'db' | 'dialect'>,
  guard: WriteGuard,
  statement: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (guard.reservation?.phase === 'none') return writeTransaction(handle, guard, statement);
  guard.signal?.throwIfAborted();
  const { execution } = guard;
  return handle.db.connection().execute(async (connection) => {
    // Checked again: the caller may have given up while waiting for a pooled connection.
    guard.signal?.throwIfAborted();
    const before = execution?.commit;
    if (execution) execution.commit = 'committing';
    let result: T;
    try {
      result = await statement(connection);
    } catch (error) {
      // Refused by the database (a constraint, a timeout that cancelled it) or failed in process on
      // SQLite (busy included: autocommit rolled it back): nothing was written. Only a PostgreSQL
      // connection that failed with the statement sent leaves the outcome unknown.
      const unknown = handle.dialect !== 'sqlite' && isTransientStoreError(error);
      if (!unknown && execution && before) execution.commit = before;
      throw unknown ? commitFailure(error) : error;
    }
    if (execution) execution.commit = 'committed';
    return result;
  });
}

/** The connection failed with the commit sent: it may have landed, so this must not look retryable. */
function commitFailure(error: unknown): unknown {
  if (!isTransientStoreError(error)) return error;
  return new AppError(
    'UNAVAILABLE',
    'The database connection failed while this change was being committed; it may have been applied: check the current state before calling again',
    { retryable: false, writeOutcome: 'unknown' },
  );
}
