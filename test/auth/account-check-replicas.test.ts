/**
 * The account check across replicas (docs/security.md, Tokens): two servers on port 0 sharing one store.
 * Replica B remembers the account (no store round trip per request), and an account deleted, demoted or
 * re-created through replica A's connection is refused on B as soon as the store's change notice arrives:
 * on PostgreSQL, LISTEN/NOTIFY (B trusts what it remembers for ten minutes here, so only the notice can
 * refuse within the poll's bound); on SQLite, two processes on one file, from the very next request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACCOUNT_MAX_AGE_MS } from '../../src/auth/account-check.js';
import { classificationOf, startTestServer, type TestServer } from '../helpers/server.js';

/** B would otherwise trust a remembered account this long: far past any poll below. */
const NO_EXPIRY_MS = 600_000;
const ROLE_LOOKUP = /select "role" from "users"/;
const ME = '{ me { id username } }';
const EMAILS = '{ movie(id: "1") { reviews { user { email } } } }';
const CREATE = 'mutation { createMovie(input: { title: "Replica demotion", releaseYear: 2001 }) { id } }';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function replicas(dialect: 'sqlite' | 'postgres') {
  const a = await startTestServer(dialect);
  cleanups.push(() => a.stop());
  let lookups = 0;
  const b = await startTestServer(dialect, {
    env: dialect === 'postgres' ? { DATABASE_SCHEMA: a.schemaName } : { DATA_DIR: a.dataDir },
    onQuery: (sql) => void (ROLE_LOOKUP.test(sql) && lookups++),
    accountMaxAgeMs: NO_EXPIRY_MS,
  });
  cleanups.push(() => b.stop());
  return { a, b, lookups: () => lookups };
}

const setRole = (server: TestServer, username: string, role: 'USER' | 'ADMIN') =>
  server.store.handle.db.updateTable('users').set({ role }).where('username', '=', username).execute();
const deleteUser = (server: TestServer, username: string) =>
  server.store.handle.db.deleteFrom('users').where('username', '=', username).execute();

/** How long B took to refuse after the change, polled (PostgreSQL's notice arrives after the commit). */
async function refusedOn(request: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  await expect.poll(request, { timeout: ACCOUNT_MAX_AGE_MS, interval: 10 }).toBe(true);
  return performance.now() - started;
}

const dialects = process.env.TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(dialects)('an account changed on replica A is refused on replica B, on %s', (dialect) => {
  /** SQLite sees the other process's commit on the next request; PostgreSQL when the notice arrives. */
  const untilRefused = async (b: TestServer, refused: () => Promise<boolean>) => {
    if (dialect === 'sqlite') return expect(await refused()).toBe(true);
    const ms = await refusedOn(refused);
    console.log(`postgres: refused on replica B ${ms.toFixed(0)} ms after the change on A`);
  };

  it('B asks the store once for a signed-in account, then answers from memory', async () => {
    const { b, lookups } = await replicas(dialect);
    const { token } = await b.newUser();
    for (let i = 0; i < 5; i++) expect((await b.graphql(ME, undefined, token)).status).toBe(200);
    expect(lookups()).toBe(1);
  });

  it('a user deleted through A is refused on B (401 on /graphql and /mcp), though B remembered them', async () => {
    const { a, b } = await replicas(dialect);
    const { token, username } = await b.newUser();
    expect((await b.graphql(ME, undefined, token)).status).toBe(200);

    await deleteUser(a, username);

    await untilRefused(b, async () => (await b.graphql(ME, undefined, token)).status === 401);
    const mcp = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(401);
  });

  it('an administrator demoted through A loses the role on B', async () => {
    const { a, b } = await replicas(dialect);
    const { username } = await b.newUser();
    await setRole(a, username, 'ADMIN');
    const token = await b.login(username, 'secret123');
    expect((await b.graphql(CREATE, undefined, token)).body.errors).toBeUndefined();

    await setRole(a, username, 'USER');

    // Polled with a read an administrator alone may make (other users' e-mail), so nothing is written.
    await untilRefused(
      b,
      async () => classificationOf(await b.graphql(EMAILS, undefined, token)) === 'FORBIDDEN',
    );
    expect(classificationOf(await b.graphql(CREATE, undefined, token))).toBe('FORBIDDEN');
    expect(await b.count('movies', "title = 'Replica demotion'")).toBe(1);
  });

  it('an account re-created through A under the same name: the old token is refused on B, the new one served', async () => {
    const { a, b } = await replicas(dialect);
    const { token: oldToken, username } = await b.newUser();
    expect((await b.graphql(ME, undefined, oldToken)).status).toBe(200);

    await deleteUser(a, username);
    const again = await a.graphql<{ register: { token: string } }>(
      'mutation ($input: RegisterInput!) { register(input: $input) { token } }',
      { input: { username, email: `${username}@example.com`, password: 'secret123' } },
    );

    await untilRefused(b, async () => (await b.graphql(ME, undefined, oldToken)).status === 401);
    const fresh = await b.graphql<{ me: { username: string } }>(
      ME,
      undefined,
      again.body.data!.register.token,
    );
    expect(fresh.body.data!.me.username).toBe(username);
  });
});
