/**
 * Tells this process when an account was deleted or its role changed, or the rows it owns (its watch
 * list) changed, however the change was made (a request, a migration, an operator's SQL), so the account
 * check can remember accounts instead of asking the store on every request (src/auth/account-check.ts),
 * and the result cache can keep a caller's own reads (src/graphql/result-cache.ts).
 *
 * PostgreSQL: triggers on `users` and `watchlist_items` (migrations 0008 to 0010) send a NOTIFY when their
 * transaction commits, except for this process's own watch-list writes, which it announces itself once
 * they have committed (announceOwnedRows; change-notices.ts says why), and every
 * replica LISTENs on a connection of its own; while that connection is down, nothing is `live` and every
 * request asks the store, and after it (re)connects everything is forgotten, since notices sent meanwhile
 * are lost. SQLite: changes on this process's connection fire a temporary trigger that calls back here at
 * once, and another connection's commits (a second process on the same file, the sqlite3 shell) show in
 * `PRAGMA data_version`, read in-process by live() (no I/O, but about 5 µs through better-sqlite3), which the
 * account check calls once per signed-in request.
 */
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { loadPg } from './load-pg.js';
import { ANY_ACCOUNT, createAnnouncer, isRefusal } from './owned-rows-announcer.js';

/** An account id that changed, or null: any account may have changed (forget them all). */
export type AccountChangeListener = (userId: number | null) => void;

export interface AccountChanges {
  /**
   * Whether every change committed so far has been reported. Checked before a remembered account is
   * used; on SQLite it also reports other connections' commits, so call it first.
   */
  live(): boolean;
  /**
   * Whether the feed is connected now, without asking SQLite for other connections' commits (a read of
   * about 5 µs): for a second check within a request whose account check already called live().
   */
  listening(): boolean;
  /** An account deleted, its id or role changed. */
  onChange(listener: AccountChangeListener): void;
  /** A row an account owns (a watch-list entry) added, changed or removed. */
  onOwnedRowsChange(listener: AccountChangeListener): void;
  /**
   * Tells every replica that this account's own rows (null: any account's) changed in a write this
   * process has committed, on a connection whose trigger stays silent (change-notices.ts). Call it once
   * the commit is acknowledged, never before: a replica told early could keep what it read before the
   * commit. Never waits: on PostgreSQL the accounts go out on the feed's own connection after the
   * write's answer, one statement at a time, those of the writes made meanwhile in the next
   * (owned-rows-announcer.ts).
   */
  announceOwnedRows(userId: number | null): void;
  close(): Promise<void>;
}

/**
 * The NOTIFY channel. The payload is `<schema> <id>` for an account, `<schema> owned <id>` for the rows
 * it owns, with `*` for the id when the table was truncated.
 */
export const ACCOUNT_CHANGE_CHANNEL = 'moviedb_account_changed';
/** The payload's word for a change to an account's own rows. */
export const OWNED_ROWS_CHANGE = 'owned';

function createListeners() {
  const listeners: AccountChangeListener[] = [];
  return {
    add: (listener: AccountChangeListener) => void listeners.push(listener),
    emit: (userId: number | null) => {
      for (const listener of listeners) listener(userId);
    },
  };
}

const idOf = (id: unknown) => (typeof id === 'number' || typeof id === 'bigint' ? Number(id) : null);

export function watchSqliteAccountChanges(file: SqliteDatabase.Database): AccountChanges {
  const listeners = createListeners();
  const owned = createListeners();
  file.function('moviedb_account_changed', { varargs: false, deterministic: false }, (id: unknown) => {
    listeners.emit(idOf(id));
    return null;
  });
  file.function('moviedb_owned_rows_changed', { varargs: false, deterministic: false }, (id: unknown) => {
    owned.emit(idOf(id));
    return null;
  });
  // Temporary: they live on this connection only, so no other program opening the file meets a
  // function it does not have. A rolled-back change still reports: that costs one lookup, nothing more.
  file.exec(`
    create temp trigger if not exists moviedb_account_deleted after delete on main.users
      begin select moviedb_account_changed(old.id); end;
    create temp trigger if not exists moviedb_account_updated after update of id, role on main.users
      begin select moviedb_account_changed(old.id); end;
    create temp trigger if not exists moviedb_watchlist_added after insert on main.watchlist_items
      begin select moviedb_owned_rows_changed(new.user_id); end;
    create temp trigger if not exists moviedb_watchlist_updated after update on main.watchlist_items
      begin select moviedb_owned_rows_changed(old.user_id); end;
    create temp trigger if not exists moviedb_watchlist_moved after update of user_id on main.watchlist_items
      when new.user_id is not old.user_id begin select moviedb_owned_rows_changed(new.user_id); end;
    create temp trigger if not exists moviedb_watchlist_removed after delete on main.watchlist_items
      begin select moviedb_owned_rows_changed(old.user_id); end;
  `);
  const dataVersion = file.prepare('pragma data_version').pluck();
  let seen = dataVersion.get();
  return {
    live() {
      if (!file.open) return false;
      const version = dataVersion.get();
      if (version !== seen) {
        seen = version;
        listeners.emit(null);
        owned.emit(null);
      }
      return true;
    },
    listening: () => file.open,
    onChange: listeners.add,
    onOwnedRowsChange: owned.add,
    // Nothing to send: this connection's temporary triggers report its writes at once, and another
    // process sees them in data_version.
    announceOwnedRows: () => undefined,
    async close() {},
  };
}

/** Reconnection backs off to this and stays there while PostgreSQL is away. */
const MAX_RECONNECT_DELAY_MS = 2000;
/** As the pool's connection timeout (src/store/database.ts). */
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/**
 * The first keep-alive probe after this much silence. Without it the OS's default applies (two hours on
 * Linux), and a LISTEN connection is silent by nature: one that died without a FIN (a NAT or firewall
 * dropping idle flows, a host gone) would look live for hours, missing every notice.
 */
const KEEP_ALIVE_DELAY_MS = 10_000;

/** `schema` is the one the tables are in, as the triggers name it in their notices (database.ts resolves it). */
export function watchPostgresAccountChanges(
  url: string,
  schema: string,
  options: {
    onConnectionError?: (error: Error) => void;
    /**
     * Longest wait for the connection and its LISTEN. A connection accepted and then never answered (a
     * dead route, a frozen pooler) neither fails nor closes: without a deadline the feed would wait on it
     * for good, not live, and close() would wait with it.
     */
    connectTimeoutMs?: number;
  } = {},
): AccountChanges {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const listeners = createListeners();
  const owned = createListeners();
  let live = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let attempt = 0;
  // This process's own watch-list writes, announced on the feed's connection once they have committed: a
  // statement of their own, a transaction that writes nothing, so the notify lock is held without a WAL
  // flush (change-notices.ts). While the connection is down they wait for the next; a process that dies
  // first loses them, and other replicas then keep those answers until VIEWER_RESULT_MAX_AGE_MS, as for
  // a lost notice.
  const announcer = createAnnouncer({
    send(ids) {
      const sender = client;
      if (!live || !sender) return undefined;
      return sender
        .query('select pg_notify($1, payload) from unnest($2::text[]) as payload', [
          ACCOUNT_CHANGE_CHANNEL,
          ids.map((id) => `${schema} ${OWNED_ROWS_CHANGE} ${id}`),
        ])
        .catch((error: unknown) => {
          // No answer in time (pg's query timeout) from a connection that looks alive: it would not
          // deliver notices either, and pg would queue every later statement behind this one. Dropped
          // and opened anew, as a lost connection; meanwhile nothing is live.
          if (!isRefusal(error) && client === sender) lost(error as Error);
          throw error;
        });
    },
  });

  const lost = (error?: Error) => {
    if (error && live) options.onConnectionError?.(error);
    live = false;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    client?.end().catch(() => undefined);
    client = undefined;
    if (closed || retry) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        void connect();
      },
      Math.min(++attempt * 200, MAX_RECONNECT_DELAY_MS),
    );
    retry.unref();
  };

  async function connect(): Promise<void> {
    // Keep-alive, so a connection that died silently is noticed (a notice lost meanwhile is bounded by
    // the account check's safety TTL).
    const next = new (await loadPg()).Client({
      connectionString: url,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: connectTimeoutMs,
    });
    client = next;
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', ({ payload }) => {
      // Matched as a prefix, not split on spaces: a schema named by the search path may hold one.
      if (!payload?.startsWith(`${schema} `)) return;
      const rest = payload.slice(schema.length + 1);
      const ownedRows = rest.startsWith(`${OWNED_ROWS_CHANGE} `);
      const id = ownedRows ? rest.slice(OWNED_ROWS_CHANGE.length + 1) : rest;
      // `*` is a truncate; an id that does not read as one (a schema whose name starts with ours and a
      // space) is taken as anyone's change too: forgetting more is always safe.
      const userId = Number(id);
      (ownedRows ? owned : listeners).emit(Number.isSafeInteger(userId) && id !== '' ? userId : null);
    });
    try {
      await next.connect();
      await next.query(`listen ${ACCOUNT_CHANGE_CHANNEL}`);
    } catch (error) {
      if (client === next) lost(error as Error);
      return;
    }
    if (closed) return void next.end().catch(() => undefined);
    attempt = 0;
    // Whatever changed while no one listened is unknown: forget everything, then trust the notices.
    listeners.emit(null);
    owned.emit(null);
    live = true;
    announcer.wake();
  }

  void connect();
  return {
    live: () => live,
    listening: () => live,
    onChange: listeners.add,
    onOwnedRowsChange: owned.add,
    announceOwnedRows(userId) {
      announcer.add(userId === null ? ANY_ACCOUNT : String(userId));
    },
    async close() {
      // The last writes' notices go out before the connection closes (a server draining, say).
      await announcer.flush();
      closed = true;
      live = false;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      last?.removeAllListeners();
      last?.on('error', () => undefined);
      await last?.end().catch(() => undefined);
    },
  };
}
