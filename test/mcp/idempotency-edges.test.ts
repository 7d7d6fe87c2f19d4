/**
 * Idempotency keys at their edges (docs/mcp.md, Idempotent writes): a key that expired is used anew and
 * purged, a key shared by two replicas on one database writes once, and a replay is never a way round
 * the token's scopes. The key's everyday behaviour is idempotency.test.ts's.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startServerTrustingIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(dialects)('expired idempotency keys on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  it('an expired key is used anew, and expired keys are purged', async () => {
    const { token, username } = await server.newUser();
    const client = await connectClient(server.url, token);
    const { db } = server.store.handle;
    const past = new Date(Date.now() - 1000).toISOString();
    // A stranger's expired key; the purge runs after a keyed write, at most every 10 minutes per process.
    await sql`insert into idempotency_keys (subject, idempotency_key, fingerprint, result, created_at, expires_at)
      values ('999999', 'stale', 'x', null, ${past}, ${past})`.execute(db);
    try {
      const idempotencyKey = randomUUID();
      await callTool(client, 'addToWatchlist', { subject: { movieId: '29' }, idempotencyKey });
      await expect.poll(() => server.count('idempotency_keys', `idempotency_key = 'stale'`)).toBe(0);
      await sql`update idempotency_keys set expires_at = ${past} where idempotency_key = ${idempotencyKey}`.execute(
        db,
      );
      // Expired: the same key with other arguments is a new call, not a BAD_REQUEST.
      const reused = await callTool(client, 'addToWatchlist', { subject: { movieId: '30' }, idempotencyKey });
      expect(reused.isError).toBe(false);
      expect(
        await server.count(
          'watchlist_items',
          `user_id = (select id from users where username = '${username}')`,
        ),
      ).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe.each(dialects)('idempotent writes across two replicas on %s', (dialect) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer(dialect);
    // The second replica opens the first one's database: its SQLite file, or its PostgreSQL schema.
    b = await startTestServer(dialect, {
      env:
        dialect === 'sqlite'
          ? { DATA_DIR: a.dataDir }
          : { DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_SCHEMA: a.schemaName },
    });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  it('20 concurrent repeats spread over both replicas write one row and answer alike', async () => {
    const { token, username } = await a.newUser();
    const clients = [await connectClient(a.url, token), await connectClient(b.url, token)];
    try {
      const args = { subject: { movieId: '40' }, idempotencyKey: randomUUID() };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => callTool(clients[i % 2]!, 'addToWatchlist', args)),
      );
      expect(new Set(results.map((r) => JSON.stringify(r.structuredContent))).size).toBe(1);
      expect(results[0]!.isError).toBe(false);
      expect(
        await a.count('watchlist_items', `user_id = (select id from users where username = '${username}')`),
      ).toBe(1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

describe.each(dialects)('an idempotent replay and the token’s scopes on %s', (dialect) => {
  const PUBLIC_URL = 'http://mcp.test';
  let issuer: JwksIssuer;
  let server: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, issuer, stop } = await startServerTrustingIssuer(dialect, { PUBLIC_URL }));
  });
  afterAll(() => stop());

  const ADD = 'mutation ($id: ID!) { addToWatchlist(subject: {movieId: $id}) { id status } }';
  const post = async (token: string, key?: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: JSON.stringify({ query: ADD, variables: { id: '38' } }),
    });
    const body = (await response.json()) as {
      data: unknown;
      errors?: { message: string; path?: unknown[]; extensions: Record<string, unknown> }[];
    };
    return { replayed: response.headers.get('idempotent-replayed'), body };
  };

  it('a token of the same subject without the write scope is refused as without a key, not replayed', async () => {
    const sub = `agent-replay-${dialect}`;
    const token = (scope: string) => issuer.sign({ sub, scope }, `${PUBLIC_URL}/mcp`);
    const writer = await token('movies:read watchlist:read watchlist:write');
    const reader = await token('movies:read');
    const key = randomUUID();
    const first = await post(writer, key);
    expect(first.body.errors).toBeUndefined();

    const unkeyed = await post(reader);
    expect(unkeyed.body.errors![0]!.extensions).toMatchObject({
      classification: 'FORBIDDEN',
      requiredScopes: ['watchlist:write'],
    });
    const keyed = await post(reader, key);
    expect(keyed.replayed).toBeNull();
    expect(keyed.body.data).toBeNull();
    const { message, path, extensions } = unkeyed.body.errors![0]!;
    expect(keyed.body.errors).toEqual([{ message, path, extensions }]);

    // The key still answers its own caller's repeat, and one row was written in all.
    const again = await post(writer, key);
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = await server.graphql<{ watchlist: unknown[] }>('{ watchlist { id } }', {}, writer);
    expect(list.body.data?.watchlist).toHaveLength(1);
  });
});
