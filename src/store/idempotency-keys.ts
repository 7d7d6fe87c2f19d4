/**
 * Idempotency keys of writes (docs/mcp.md, Idempotent writes), scoped to the caller's subject. A key is reserved by the first
 * statement of the write transaction it guards, so the reservation commits or rolls back with the write
 * and a racing repeat fails on the primary key before writing anything; the answer is stored beside the
 * key once execution has produced it.
 */
import type { Kysely } from 'kysely';
import type { Database, IdempotencyKey } from './tables.js';

export interface KeyIdentity {
  subject: string;
  key: string;
}

export function createIdempotencyKeys(db: Kysely<Database>) {
  let lastPurge = 0;
  const byKey = ({ subject, key }: KeyIdentity) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('subject', '=', subject)
      .where('idempotency_key', '=', key);
  return {
    find: (id: KeyIdentity): Promise<IdempotencyKey | undefined> => byKey(id).executeTakeFirst(),
    /**
     * The reservation, inside the write's transaction: true when this call now holds the key, false
     * when another holds it (a repeat that committed first; PostgreSQL makes a concurrent one wait for
     * that commit). An expired holder is replaced in the same statement.
     */
    async reserve(
      trx: Kysely<Database>,
      id: KeyIdentity & { fingerprint: string },
      now: Date,
      ttlMs: number,
    ): Promise<boolean> {
      const row = {
        fingerprint: id.fingerprint,
        result: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      };
      const outcome = await trx
        .insertInto('idempotency_keys')
        .values({ subject: id.subject, idempotency_key: id.key, ...row })
        .onConflict((conflict) =>
          conflict
            .columns(['subject', 'idempotency_key'])
            .doUpdateSet(row)
            .where('idempotency_keys.expires_at', '<=', row.created_at),
        )
        .executeTakeFirst();
      return Number(outcome.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    /** Stores the answer of the write the key reserved (no row, no effect: its commit did not land). */
    async complete(id: KeyIdentity, result: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ result })
        .where('subject', '=', id.subject)
        .where('idempotency_key', '=', id.key)
        .execute();
    },
    /** Deletes every key past its expiry, at most once per `intervalMs` in this process; returns how many. */
    async purgeExpired(now: Date, intervalMs: number): Promise<number> {
      if (now.getTime() - lastPurge < intervalMs) return 0;
      lastPurge = now.getTime();
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('expires_at', '<=', now.toISOString())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
