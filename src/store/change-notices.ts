/**
 * The migrations behind the store's change feed (src/store/account-changes.ts). PostgreSQL tells every
 * replica what changed, however the change is made: a NOTIFY is delivered at commit, and not at all on
 * rollback. SQLite needs nothing stored: its process watches through temporary triggers of its own
 * connection.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './database.js';
import { ACCOUNT_CHANGE_CHANNEL, OWNED_ROWS_CHANGE } from './account-changes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed tables exist
type AnyDb = Kysely<any>;

/** An account deleted, or its id or role changed. */
export function accountChangeNotices(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`
        create or replace function moviedb_account_changed() returns trigger language plpgsql as $$
        begin
          if tg_op = 'TRUNCATE' then
            perform pg_notify(${sql.lit(ACCOUNT_CHANGE_CHANNEL)}, tg_table_schema || ' *');
          else
            perform pg_notify(${sql.lit(ACCOUNT_CHANGE_CHANNEL)}, tg_table_schema || ' ' || old.id);
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger users_account_changed after delete or update of id, role on users
        for each row execute function moviedb_account_changed()`.execute(db);
      await sql`create trigger users_truncated after truncate on users
        for each statement execute function moviedb_account_changed()`.execute(db);
    },
  };
}

/**
 * The setting a connection turns `off` when it announces its own watch-list writes after they commit
 * (src/store/database.ts sets it on every pooled connection; AccountChanges.announceOwnedRows sends the
 * notice). PostgreSQL serializes the commits of transactions that NOTIFY (one database-wide lock held
 * until after the commit, WAL flush included), so a notice sent in every write capped writes across all
 * replicas (docs/benchmarks.md); a notice sent on its own, from a transaction that writes nothing, holds
 * that lock without a flush. Other connections (an operator's SQL, an older replica) still notify here.
 */
export const OWNED_ROW_NOTICES_SETTING = 'moviedb.owned_row_notices';

/**
 * The trigger function behind the watch-list notices: a notice per account whose entry was added,
 * changed or removed (both owners when it moved); NOTIFY folds identical payloads of one transaction
 * into one, so a write is one notice per account it touched. `skipWhenOff`: silent on a connection
 * whose OWNED_ROW_NOTICES_SETTING is `off`.
 */
function ownedRowsFunction(skipWhenOff: boolean) {
  const prefix = ` ${OWNED_ROWS_CHANGE} `;
  const skip = skipWhenOff
    ? sql.raw(`if current_setting('${OWNED_ROW_NOTICES_SETTING}', true) = 'off' then return null; end if;`)
    : sql.raw('');
  return sql`
    create or replace function moviedb_owned_rows_changed() returns trigger language plpgsql as $$
    begin
      ${skip}
      if tg_op = 'TRUNCATE' then
        perform pg_notify(${sql.lit(ACCOUNT_CHANGE_CHANNEL)}, tg_table_schema || ${sql.lit(`${prefix}*`)});
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        perform pg_notify(${sql.lit(ACCOUNT_CHANGE_CHANNEL)}, tg_table_schema || ${sql.lit(prefix)} || old.user_id);
      end if;
      if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.user_id is distinct from old.user_id) then
        perform pg_notify(${sql.lit(ACCOUNT_CHANGE_CHANNEL)}, tg_table_schema || ${sql.lit(prefix)} || new.user_id);
      end if;
      return null;
    end $$`;
}

/** A watch-list entry added, changed or removed, for its owner. */
export function ownedRowNotices(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await ownedRowsFunction(false).execute(db);
      await sql`create trigger watchlist_items_changed after insert or update or delete on watchlist_items
        for each row execute function moviedb_owned_rows_changed()`.execute(db);
      await sql`create trigger watchlist_items_truncated after truncate on watchlist_items
        for each statement execute function moviedb_owned_rows_changed()`.execute(db);
    },
  };
}

/** The same notices, except from connections that announce their own writes after commit. */
export function ownedRowNoticesAnnouncedApart(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await ownedRowsFunction(true).execute(db);
    },
  };
}
