/**
 * A caller's own reads kept per account (src/graphql/result-cache.ts, @viewerResult), through the front
 * door: a repeated watch list costs the store nothing, on /graphql and through the myWatchlist tool; a
 * write shows in the writer's next read on the same replica, at once; and on a second replica sharing
 * the store, a change made through the first or with plain SQL shows in the next read (SQLite: two
 * processes on one file) or as soon as PostgreSQL's notice arrives, while a change to another account
 * leaves this one's entry alone. The entry would otherwise live VIEWER_RESULT_MAX_AGE_MS (5 s); every
 * poll here gives up well before, so only the notice can pass it. No spelling of the document serves one
 * caller another's entry, a narrower token is refused, a change made while the listener reconnects is
 * never served stale, and RESULT_CACHE_MB bounds what the keys hold too.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { VIEWER_RESULT_MAX_AGE_MS } from '../../src/graphql/result-cache.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** The watch-list read (src/store/watchlist.ts `listed`): its statement joins the entries to the account. */
const LISTING = /left join "watchlist_items"/;
const WATCHLIST = '{ watchlist { id status } }';
const ADD = 'mutation ($movieId: ID!) { addToWatchlist(subject: { movieId: $movieId }) { id } }';
const SET =
  'mutation ($id: ID!, $status: WatchStatus!) { setWatchStatus(itemId: $id, status: $status) { id } }';
/** Shorter than the entry's life, so passing means the notice, not the expiry, did it. */
const NOTICE_WITHIN_MS = VIEWER_RESULT_MAX_AGE_MS / 2;

type Entry = { id: string; status: string };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(dialect: (typeof dialects)[number], first?: TestServer, env: Env = {}) {
  let listings = 0;
  const started = await startTestServer(dialect, {
    env: {
      ...(first
        ? dialect === 'postgres'
          ? { DATABASE_SCHEMA: first.schemaName }
          : { DATA_DIR: first.dataDir }
        : {}),
      ...env,
    },
    onQuery: (sql) => void (LISTING.test(sql) && listings++),
  });
  cleanups.push(() => started.stop());
  return { server: started, listings: () => listings };
}

const listOf = async (server: TestServer, token: string) =>
  (await server.graphql<{ watchlist: Entry[] }>(WATCHLIST, {}, token)).body.data!.watchlist;

async function userWithEntry(server: TestServer) {
  const user = await server.newUser();
  const added = await server.graphql<{ addToWatchlist: { id: string } }>(ADD, { movieId: '5' }, user.token);
  return { ...user, item: added.body.data!.addToWatchlist.id };
}

/**
 * Reads until one is answered without the store: the list is kept, and the notices of the writes before
 * it have arrived (PostgreSQL delivers a server's own writes' notices after their commit, so the first
 * read after a write may be kept and then forgotten once; on a busy machine the feed may also still be
 * connecting at start).
 */
async function untilKept(read: () => Promise<unknown>, listings: () => number) {
  await expect
    .poll(
      async () => {
        const before = listings();
        await read();
        return listings() === before;
      },
      { timeout: NOTICE_WITHIN_MS, interval: 10 },
    )
    .toBe(true);
}

describe.each(dialects)('a caller’s own reads, kept per account, on %s', (dialect) => {
  it('a repeated watch list is read from the store once, on /graphql and through myWatchlist', async () => {
    const { server: s, listings } = await server(dialect);
    const { token } = await userWithEntry(s);
    const first = await listOf(s, token);
    await untilKept(() => listOf(s, token), listings);
    const kept = listings();
    for (let i = 0; i < 3; i++) expect(await listOf(s, token)).toEqual(first);
    expect(listings()).toBe(kept);
    const client = await connectClient(s.url, token);
    try {
      const calls = [];
      for (let i = 0; i < 3; i++)
        calls.push((await callTool<Entry[]>(client, 'myWatchlist')).structuredContent.data);
      expect(calls.map((data) => data.map((entry) => entry.id))).toEqual([
        [first[0]!.id],
        [first[0]!.id],
        [first[0]!.id],
      ]);
    } finally {
      await client.close();
    }
    expect(listings()).toBe(kept + 1);
  });

  it('RESULT_CACHE_MB counts the keys: 4 KB of variables per entry, 300 entries do not fit in 1 MB', async () => {
    // Variables the operation does not declare are ignored by execution but are part of the key: a tiny
    // answer kept under a 4 KB key once counted a few bytes, so 1 MB held some 200 MB of keys.
    const { server: s, listings } = await server(dialect, undefined, { RESULT_CACHE_MB: '1' });
    const { token } = await userWithEntry(s);
    const padded = (i: number) => ({ pad: `${i}:`.padEnd(4000, 'x') });
    const read = async (i: number) =>
      expect((await s.graphql(WATCHLIST, padded(i), token)).body.errors).toBeUndefined();
    await untilKept(() => read(0), listings);
    for (let i = 1; i <= 300; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => read(i + j)));
    const before = listings();
    await read(0);
    expect(listings()).toBe(before + 1);
  });

  it('no caller is served another’s entry, however the document is spelt; a narrower token is refused', async () => {
    const { server: s } = await server(dialect);
    const mine = await userWithEntry(s);
    const theirs = await userWithEntry(s);
    const documents = [
      WATCHLIST,
      '{ x: watchlist { id status } }',
      'query Q { ...R } fragment R on Query { watchlist { ...F } } fragment F on WatchlistItem { id status }',
      '{ __typename watchlist { __typename id status } }',
    ];
    for (let round = 0; round < 2; round++)
      for (const document of documents)
        for (const [caller, other] of [
          [mine, theirs],
          [theirs, mine],
        ] as const) {
          const body = JSON.stringify((await s.graphql(document, {}, caller.token)).body);
          expect(body).toContain(`"id":"${caller.item}"`);
          expect(body).not.toContain(`"id":"${other.item}"`);
        }
    const ITEM = 'query ($id: ID!) { watchlistItem(id: $id) { id } }';
    for (let i = 0; i < 2; i++) {
      expect((await s.graphql(ITEM, { id: mine.item }, mine.token)).body.data).toEqual({
        watchlistItem: { id: mine.item },
      });
      const other = await s.graphql(ITEM, { id: mine.item }, theirs.token);
      expect(other.body.errors?.[0]?.extensions?.classification).toBe('NOT_FOUND');
    }
    const { me } = (await s.graphql<{ me: { id: string } }>('{ me { id } }', {}, mine.token)).body.data!;
    const narrow = await s.tokens.issue(Number(me.id), 'USER', {
      scopes: ['movies:read'],
      resource: s.url,
      ttlSeconds: 60,
    });
    const refused = await s.graphql(WATCHLIST, {}, narrow);
    expect(refused.body.errors?.[0]?.extensions?.classification).toBe('FORBIDDEN');
    expect(refused.body.data).toBeNull();
  });

  it('a write shows in the writer’s very next read on the same replica', async () => {
    // The list is kept before each write, so only a forgetting makes the next read fresh: the write's
    // own, before it answers, or the feed's notice (on loopback it comes first anyway; the write's own is
    // pinned without the notice in viewer-result-keys.unit.test.ts).
    const { server: s, listings } = await server(dialect);
    const { token, item } = await userWithEntry(s);
    expect(await listOf(s, token)).toEqual([{ id: item, status: 'WANT_TO_WATCH' }]);
    for (const status of ['WATCHED', 'WANT_TO_WATCH', 'WATCHED']) {
      await untilKept(() => listOf(s, token), listings);
      await s.graphql(SET, { id: item, status }, token);
      expect(await listOf(s, token)).toEqual([{ id: item, status }]);
    }
    await s.graphql(ADD, { movieId: '6' }, token);
    expect(await listOf(s, token)).toHaveLength(2);
  });
});

describe.each(dialects)('a caller’s own reads across two replicas, on %s', (dialect) => {
  async function replicas() {
    const a = await server(dialect);
    const b = await server(dialect, a.server);
    return { a: a.server, b: b.server, listingsOnB: b.listings };
  }

  /** SQLite: the next read on B; PostgreSQL: polled until the notice arrived, its delay printed. */
  async function untilSeen(read: () => Promise<boolean>, what: string) {
    if (dialect === 'sqlite') return expect(await read()).toBe(true);
    const started = performance.now();
    await expect.poll(read, { timeout: NOTICE_WITHIN_MS, interval: 10 }).toBe(true);
    console.log(`postgres: ${what} seen on replica B ${(performance.now() - started).toFixed(0)} ms after`);
  }

  it('a change made through replica A, or with plain SQL, shows on B, which kept the list', async () => {
    const { a, b, listingsOnB } = await replicas();
    const { token, item } = await userWithEntry(b);
    await untilKept(() => listOf(b, token), listingsOnB);

    await a.graphql(SET, { id: item, status: 'WATCHED' }, token);
    await untilSeen(async () => (await listOf(b, token))[0]?.status === 'WATCHED', 'a write through A');

    // Plain SQL from a connection of its own, as an operator's: on SQLite A's (another process's
    // connection to the file); on PostgreSQL not A's pool, whose own watch-list writes A announces itself.
    const plainSql = async (statement: string) => {
      if (dialect === 'sqlite') return void (await sql.raw(statement).execute(a.store.handle.db));
      const operator = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await operator.connect();
      await operator.query(`set search_path = "${a.schemaName}"`);
      await operator.query(statement).finally(() => operator.end());
    };
    await plainSql(`update watchlist_items set status = 'WANT_TO_WATCH' where id = ${Number(item)}`);
    await untilSeen(async () => (await listOf(b, token))[0]?.status === 'WANT_TO_WATCH', 'an SQL update');

    await plainSql(`delete from watchlist_items where id = ${Number(item)}`);
    await untilSeen(async () => (await listOf(b, token)).length === 0, 'an SQL delete');
  });

  it('while B’s PostgreSQL listener reconnects, a change made meanwhile is never served stale', async () => {
    // Its notice is lost with the connection: B must keep nothing until it listens again, then forget.
    if (dialect === 'sqlite') return;
    const name = `viewer_feed_${randomBytes(6).toString('hex')}`;
    const env = { DATABASE_URL: `${process.env.TEST_DATABASE_URL}?application_name=${name}` };
    const a = (await server(dialect, undefined, env)).server;
    const { server: b, listings: listingsOnB } = await server(dialect, a, env);
    const { token, item } = await userWithEntry(a);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    cleanups.push(() => admin.end());
    // A feed's connection, by its last statement: its LISTEN, or the notices it sent since.
    const FEED_QUERY = `(query like 'listen %' or query like 'select pg_notify(%')`;
    const listeners = async () =>
      (
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and ${FEED_QUERY}`,
          [name],
        )
      ).rowCount;
    const listening = () =>
      expect
        .poll(
          async () =>
            (
              await admin.query(
                `select 1 from pg_stat_activity where application_name = $1 and ${FEED_QUERY}`,
                [name],
              )
            ).rowCount,
          { timeout: NOTICE_WITHIN_MS, interval: 10 },
        )
        .toBe(2);
    for (const status of ['WATCHED', 'WANT_TO_WATCH', 'WATCHED']) {
      await listening();
      await listOf(b, token);
      await listOf(b, token);
      expect(await listeners()).toBe(2);
      // pg_terminate_backend returns before B has read its connection's end; a change committed in
      // between is a notice lost on a connection that looks alive, which the 5 s entry life bounds (not
      // this test). A read that B answers from the store says B has noticed: it keeps nothing now, or it
      // listens again and has forgotten everything.
      const noticed = listingsOnB();
      await expect
        .poll(async () => (await listOf(b, token), listingsOnB() > noticed), {
          timeout: NOTICE_WITHIN_MS,
          interval: 5,
        })
        .toBe(true);
      await admin.query(`update "${a.schemaName}".watchlist_items set status = $1 where id = $2`, [
        status,
        Number(item),
      ]);
      for (let i = 0; i < 10; i++) expect((await listOf(b, token))[0]?.status).toBe(status);
      await listening();
      expect((await listOf(b, token))[0]?.status).toBe(status);
    }
  });

  it('a write through the server sends its notice once, after its commit; a deleted movie names any account (PostgreSQL)', async () => {
    // The trigger is silent on the server's own connections, which announce their writes themselves
    // (src/store/change-notices.ts): one notice per write, not the trigger's and the announcement both.
    if (dialect === 'sqlite') return;
    const { server: a } = await server(dialect);
    const { token, item } = await userWithEntry(a);
    const me = (await a.graphql<{ me: { id: string } }>('{ me { id } }', {}, token)).body.data!.me.id;
    const listener = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await listener.connect();
    cleanups.push(() => listener.end());
    const heard: string[] = [];
    listener.on('notification', ({ payload }) => {
      if (payload?.startsWith(`${a.schemaName} `)) heard.push(payload.slice(a.schemaName.length + 1));
    });
    await listener.query('listen moviedb_account_changed');
    /**
     * What was heard once `expected` notices have come and then a marker sent after them. The server
     * announces after its answer, so a marker sent right after the answer may overtake it: the test
     * waits for the notices first. The marker then catches a second notice for the same write (the
     * trigger's comes with the commit, before any marker).
     */
    const noticesOf = async (expected: number, act: () => Promise<unknown>) => {
      heard.length = 0;
      await act();
      await expect
        .poll(() => heard.length, { timeout: NOTICE_WITHIN_MS, interval: 5 })
        .toBeGreaterThanOrEqual(expected);
      const marker = `marker ${randomBytes(4).toString('hex')}`;
      await listener.query(`select pg_notify('moviedb_account_changed', $1)`, [`${a.schemaName} ${marker}`]);
      await expect.poll(() => heard.includes(marker), { timeout: NOTICE_WITHIN_MS, interval: 5 }).toBe(true);
      return heard.filter((notice) => !notice.startsWith('marker '));
    };
    expect(await noticesOf(1, () => a.graphql(SET, { id: item, status: 'WATCHED' }, token))).toEqual([
      `owned ${me}`,
    ]);
    expect(
      await noticesOf(1, () =>
        a.graphql('mutation ($id: ID!) { removeFromWatchlist(itemId: $id) }', { id: item }, token),
      ),
    ).toEqual([`owned ${me}`]);
    expect(await noticesOf(1, () => a.graphql(ADD, { movieId: '5' }, token))).toEqual([`owned ${me}`]);
    // A write that changed nothing says nothing: the feed sends in order on one connection, so a notice
    // for it would come before the next write's.
    const admin = await a.login('admin', 'admin123');
    expect(
      await noticesOf(1, async () => {
        await a.graphql(SET, { id: '999999', status: 'WATCHED' }, token);
        await a.graphql('mutation ($id: ID!) { deleteMovie(id: $id) }', { id: '5' }, admin);
      }),
    ).toEqual(['owned *']);
    // An operator's SQL still notifies from the trigger.
    expect(
      await noticesOf(1, () =>
        listener.query(
          `insert into "${a.schemaName}".watchlist_items (user_id, movie_id, status) values ($1, 6, 'WATCHED')`,
          [Number(me)],
        ),
      ),
    ).toEqual([`owned ${me}`]);
  });

  it('a change to another account through A leaves B’s entry for this one alone (PostgreSQL)', async () => {
    // SQLite sees only that the file changed, not whose rows: B forgets every entry, which is right too.
    if (dialect === 'sqlite') return;
    const { a, b, listingsOnB } = await replicas();
    const mine = await userWithEntry(b);
    const theirs = await userWithEntry(b);
    await untilKept(() => listOf(b, mine.token), listingsOnB);
    await untilKept(() => listOf(b, theirs.token), listingsOnB);
    const before = listingsOnB();
    await a.graphql(SET, { id: theirs.item, status: 'WATCHED' }, theirs.token);
    await untilSeen(
      async () => (await listOf(b, theirs.token))[0]?.status === 'WATCHED',
      'the other account’s write',
    );
    await listOf(b, mine.token);
    expect(listingsOnB()).toBe(before + 1);
  });
});
