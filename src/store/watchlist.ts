/** Watch-list entries, always scoped to their owner so one user never reaches another's rows. */
import type { Kysely } from 'kysely';
import type { Database, WatchlistItem, WatchStatusName } from './tables.js';
import { prepareQuery } from './prepared-query.js';
import { subjectColumn, subjectColumns, type Subject } from './subject.js';

export function createWatchlist(db: Kysely<Database>) {
  // The hot statements, compiled once (prepared-query.ts).
  const ofUser = prepareQuery(db, (q, userId: number) =>
    q.selectFrom('watchlist_items').selectAll().where('user_id', '=', userId).orderBy('id'),
  );
  const setStatus = prepareQuery(db, (q, userId: number, itemId: number, status: WatchStatusName) =>
    q
      .updateTable('watchlist_items')
      .set({ status })
      .where('id', '=', itemId)
      .where('user_id', '=', userId)
      .returningAll(),
  );
  return {
    ofUser: (userId: number) => ofUser.execute([userId]),
    findOwned: (userId: number, itemId: number) =>
      db
        .selectFrom('watchlist_items')
        .selectAll()
        .where('id', '=', itemId)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    findByUserAndSubject: (userId: number, subject: Subject, trx: Kysely<Database> = db) =>
      trx
        .selectFrom('watchlist_items')
        .select('id')
        .where('user_id', '=', userId)
        .where(subjectColumn(subject), '=', subject.id)
        .executeTakeFirst(),
    add: (
      userId: number,
      subject: Subject,
      status: WatchStatusName,
      trx: Kysely<Database>,
    ): Promise<WatchlistItem> =>
      trx
        .insertInto('watchlist_items')
        .values({ user_id: userId, ...subjectColumns(subject), status })
        .returningAll()
        .executeTakeFirstOrThrow(),
    setStatus: (userId: number, itemId: number, status: WatchStatusName, trx: Kysely<Database>) =>
      setStatus.executeTakeFirst([userId, itemId, status], trx),
    async remove(userId: number, itemId: number, trx: Kysely<Database>): Promise<boolean> {
      const result = await trx
        .deleteFrom('watchlist_items')
        .where('id', '=', itemId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
