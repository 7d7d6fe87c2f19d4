/**
 * The PostgreSQL account-change feed's connection (src/store/account-changes.ts): one accepted but never
 * answered (a route that went dead, a pooler whose backend froze) neither fails nor closes, so without a
 * deadline the feed would wait on it for good and stay not live (every signed-in request asking the
 * store) long after the database answers again; one that goes silent is probed by keep-alive within
 * seconds; it sends its own writes' announcements one statement at a time, the last ones before it
 * closes, and takes one that gets no answer in time for a dead connection; and the notices it hears
 * are those of the schema the search path resolves to.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { watchPostgresAccountChanges, type AccountChanges } from '../../src/store/account-changes.js';
import { openDatabase } from '../../src/store/database.js';
import { startHoldingProxy } from '../helpers/holding-proxy.js';

const url = process.env.TEST_DATABASE_URL;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A loopback port whose first `held` connections are accepted and then never answered (nor closed);
 * later ones reach PostgreSQL.
 */
async function blackHoleFirst(held: number): Promise<{ url: string; accepted: () => number }> {
  const target = new URL(url!);
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (++accepted <= held) return;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const proxied = new URL(url!);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return { url: proxied.toString(), accepted: () => accepted };
}

/**
 * A feed for `schema` connected through the holding proxy in front of PostgreSQL, once it is live, with
 * how many announcements went through the proxy.
 */
async function feedThroughProxy(schema: string, options?: Parameters<typeof watchPostgresAccountChanges>[2]) {
  const target = new URL(url!);
  const proxy = await startHoldingProxy(target.hostname, Number(target.port || 5432));
  cleanups.push(() => proxy.close());
  const proxied = new URL(url!);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const changes = watchPostgresAccountChanges(proxied.toString(), schema, options);
  cleanups.push(() => changes.close());
  await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
  // The statement's text travels with each (the feed's is unnamed), its payloads beside it.
  return { proxy, changes, statements: () => proxy.sentCount('pg_notify($1, payload)') };
}

/** A connection listening to the feed's channel, with what it heard of `schema`'s notices. */
async function listenTo(schema: string): Promise<string[]> {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  cleanups.push(() => listener.end());
  const heard: string[] = [];
  listener.on('notification', ({ payload }) => {
    if (payload?.startsWith(`${schema} `)) heard.push(payload.slice(schema.length + 1));
  });
  await listener.query('listen moviedb_account_changed');
  return heard;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.skipIf(!url)('the PostgreSQL account-change feed', () => {
  it('gives up on a connection that is accepted and never answered, reconnects, and is live again', async () => {
    const { url: heldUrl, accepted } = await blackHoleFirst(1);
    const changes: AccountChanges = watchPostgresAccountChanges(heldUrl, 'public', { connectTimeoutMs: 300 });
    cleanups.push(() => changes.close());
    await expect.poll(accepted).toBe(1);
    expect(changes.live()).toBe(false);
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
    expect(accepted()).toBe(2);
  });

  it('probes its silent LISTEN connection within 10 s, not after the OS default of two hours', async () => {
    // A connection that died without a FIN (a NAT or firewall dropping an idle flow) must be found out;
    // the kernel's keep-alive timer on the feed's socket says when the first probe goes.
    const { url: proxiedUrl } = await blackHoleFirst(0);
    const changes = watchPostgresAccountChanges(proxiedUrl, 'public');
    cleanups.push(() => changes.close());
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
    const port = new URL(proxiedUrl).port;
    const sockets = execFileSync('ss', ['-tnoH', 'state', 'established', 'dst', `127.0.0.1:${port}`], {
      encoding: 'utf8',
    });
    // ss prints the time left as iproute2 does: `119min`, `1min4sec`, `9.892ms` (9 s 892 ms), `892ms`.
    const timer = /timer:\(keepalive,(?:(\d+)min)?(?:(\d+)(?:sec|\.))?(?:(\d+)ms)?,/.exec(sockets);
    expect(timer, sockets).not.toBeNull();
    const [minutes, secs, ms] = timer!.slice(1).map((part) => Number(part ?? 0));
    const seconds = minutes! * 60 + secs! + ms! / 1000;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(10);
  });

  it('announces each event-loop turn’s accounts in one statement, and past 1,000 of them one notice for any account', async () => {
    // A server's own watch-list writes are announced by the feed after their commit (change-notices.ts).
    const schema = `feed cap ${randomBytes(6).toString('hex')}`;
    const changes = watchPostgresAccountChanges(url!, schema);
    cleanups.push(() => changes.close());
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
    const heard = await listenTo(schema);
    /** What the feed sent for `act`'s turn, up to a notice sent after it on the feed's own connection. */
    const announced = async (act: () => void) => {
      heard.length = 0;
      act();
      await nextTurn();
      changes.announceOwnedRows(-1);
      await expect.poll(() => heard.at(-1), { timeout: 5000, interval: 10 }).toBe('owned -1');
      return heard.slice(0, -1);
    };
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(
      await announced(() => {
        for (const id of ids) changes.announceOwnedRows(id);
        changes.announceOwnedRows(1);
      }),
    ).toEqual(ids.map((id) => `owned ${id}`));
    expect(await announced(() => [...ids, 1001].forEach((id) => changes.announceOwnedRows(id)))).toEqual([
      'owned *',
    ]);
    expect(
      await announced(() => {
        changes.announceOwnedRows(7);
        changes.announceOwnedRows(null);
        changes.announceOwnedRows(8);
      }),
    ).toEqual(['owned *']);
  });

  it('sends one announcement at a time: the turns that announce while one is on its way share the next', async () => {
    // The announcer's rules are unit-tested (owned-rows-announcer.unit.test.ts); this is the real
    // connection: a statement PostgreSQL has run whose answer has not come back is still on its way.
    const schema = `feed queue ${randomBytes(6).toString('hex')}`;
    const { proxy, statements, changes } = await feedThroughProxy(schema);
    const heard = await listenTo(schema);
    proxy.holdAnswers();
    changes.announceOwnedRows(1);
    await expect.poll(() => heard, { timeout: 5000, interval: 10 }).toEqual(['owned 1']);
    for (const id of [2, 3, 4]) {
      changes.announceOwnedRows(id);
      await nextTurn();
      await nextTurn();
    }
    proxy.release();
    await expect
      .poll(() => heard, { timeout: 5000, interval: 10 })
      .toEqual(['owned 1', 'owned 2', 'owned 3', 'owned 4']);
    // pg writes a queued query only once the one before has its answer, so only the count after the
    // release tells one statement for the three turns (2) from one each (4).
    expect(statements()).toBe(2);
  });

  it('closing sends what is announced while a statement is on its way, after it', async () => {
    const schema = `feed close ${randomBytes(6).toString('hex')}`;
    const { proxy, statements, changes } = await feedThroughProxy(schema);
    const heard = await listenTo(schema);
    proxy.holdAnswers();
    changes.announceOwnedRows(1);
    await expect.poll(() => heard, { timeout: 5000, interval: 10 }).toEqual(['owned 1']);
    changes.announceOwnedRows(2);
    const closed = changes.close();
    await nextTurn();
    proxy.release();
    await closed;
    await expect.poll(() => heard, { timeout: 5000, interval: 10 }).toEqual(['owned 1', 'owned 2']);
    expect(statements()).toBe(2);
  });

  it('takes an announcement with no answer in time for a dead connection: not live, reported, then connected again', async () => {
    // A connection that looks alive but answers nothing would deliver no notices either; pg's query
    // timeout (connectTimeoutMs) gives up on the statement but leaves it queued ahead of every later one.
    const schema = `feed stalled ${randomBytes(6).toString('hex')}`;
    const errors: Error[] = [];
    const { proxy, changes } = await feedThroughProxy(schema, {
      connectTimeoutMs: 300,
      onConnectionError: (error) => errors.push(error),
    });
    const heard = await listenTo(schema);
    proxy.holdAnswers();
    changes.announceOwnedRows(1);
    await expect.poll(() => heard, { timeout: 5000, interval: 10 }).toEqual(['owned 1']);
    changes.announceOwnedRows(2);
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 10 }).toBe(false);
    expect(errors).toHaveLength(1);
    proxy.release();
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
    // The statement given up on had run, and is sent again with what waited behind it: forgetting an
    // account twice is harmless, missing it is not.
    await expect
      .poll(() => heard, { timeout: 5000, interval: 10 })
      .toEqual(['owned 1', 'owned 2', 'owned 1']);
  });

  it('replaces an announcement PostgreSQL refuses by one for any account, sent with the next write', async () => {
    // A payload over PostgreSQL's 8,000 bytes is refused (SQLSTATE 22023): the schema here is that long.
    const { proxy, statements, changes } = await feedThroughProxy(`feed refused ${'x'.repeat(8000)}`);
    changes.announceOwnedRows(1);
    await expect.poll(statements, { timeout: 5000, interval: 10 }).toBe(1);
    changes.announceOwnedRows(2);
    await expect.poll(statements, { timeout: 5000, interval: 10 }).toBe(2);
    expect(proxy.sentCount(' owned *')).toBe(1);
    expect(proxy.sentCount(' owned 2')).toBe(0);
    expect(changes.live()).toBe(true);
  });

  it('without DATABASE_SCHEMA, hears the notices that name the schema its search path resolves to, spaces and all', async () => {
    // The tables are where the search path puts them (the role's own schema, the URL's options), not
    // always in `public`: a feed that listened for `public` ignored every notice, so a replica served a
    // changed watch list, or trusted a deleted account, until the 5 s expiry.
    const schema = `feed path ${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    cleanups.push(async () => {
      await admin.query(`drop schema "${schema}" cascade`);
      await admin.end();
    });
    const pathUrl = new URL(url!);
    pathUrl.searchParams.set('options', `-c search_path="${schema.replaceAll(' ', '\\ ')}"`);
    // The store resolves the schema (src/store/database.ts) and hands it to the feed.
    const handle = await openDatabase({
      url: pathUrl.toString(),
      poolSize: 1,
      dataDir: '.',
      seedFile: path.resolve('seed/moviedb-seed.json'),
    });
    cleanups.push(() => handle.close());
    const changes = handle.watchAccountChanges();
    cleanups.push(() => changes.close());
    const owned: (number | null)[] = [];
    const accounts: (number | null)[] = [];
    changes.onOwnedRowsChange((id) => owned.push(id));
    changes.onChange((id) => accounts.push(id));
    await expect.poll(() => changes.live(), { timeout: 5000, interval: 20 }).toBe(true);
    owned.length = 0;
    accounts.length = 0;
    // What the triggers send (src/store/change-notices.ts), and a notice of another schema, ignored.
    await admin.query(`select pg_notify('moviedb_account_changed', 'public owned 41')`);
    await admin.query(`select pg_notify('moviedb_account_changed', $1)`, [`${schema} owned 42`]);
    await admin.query(`select pg_notify('moviedb_account_changed', $1)`, [`${schema} 43`]);
    await expect.poll(() => [owned, accounts], { timeout: 2000, interval: 10 }).toEqual([[42], [43]]);
  });
});
