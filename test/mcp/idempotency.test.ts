/**
 * Idempotent writes (docs/mcp.md, Idempotent writes) through the front door: a write tool's
 * idempotencyKey (argument or `_meta`) and the Idempotency-Key header on /graphql. A repeat with the
 * same key and arguments answers the first answer and writes nothing; other arguments are a BAD_REQUEST
 * naming the key; concurrent repeats write once. Expiry, two replicas and scopes: idempotency-edges.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(dialects)('idempotent writes on %s', (dialect) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  });

  const signIn = async () => {
    const { token, username } = await server.newUser();
    const client = await connectClient(server.url, token);
    clients.push(client);
    return { token, username, client };
  };
  const rows = (username: string, table = 'watchlist_items') =>
    server.count(table, `user_id = (select id from users where username = '${username}')`);

  it('a repeat with the same key and arguments answers the first answer and writes one row', async () => {
    const { client, username } = await signIn();
    const args = { subject: { movieId: '21' }, idempotencyKey: randomUUID() };
    const first = await callTool(client, 'addToWatchlist', args);
    const again = await callTool(client, 'addToWatchlist', args);
    expect(first.isError).toBe(false);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(again.content).toEqual(first.content);
    // The repeat says where its answer came from; the first does not.
    expect(first._meta?.['io.moviedb/idempotent-replay']).toBeUndefined();
    expect(again._meta?.['io.moviedb/idempotent-replay']).toBe(true);
    expect(await rows(username)).toBe(1);
    // Without a key the same call is a new write: "already in your watch list".
    const unkeyed = await callTool(client, 'addToWatchlist', { subject: { movieId: '21' } });
    expect(unkeyed.structuredContent.errors[0]!.message).toMatch(/already in your watch list/);
  });

  it('20 concurrent repeats write one row and give 20 identical answers', async () => {
    const { client, username } = await signIn();
    const args = { subject: { movieId: '22' }, status: 'WATCHED', idempotencyKey: randomUUID() };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => callTool(client, 'addToWatchlist', args)),
    );
    expect(await rows(username)).toBe(1);
    const answers = new Set(results.map((result) => JSON.stringify(result.structuredContent)));
    expect(answers.size).toBe(1);
    expect(results[0]!.structuredContent).toMatchObject({ data: { status: 'WATCHED' }, errors: [] });
  });

  it('the same key with other arguments is a BAD_REQUEST naming the key, and writes nothing', async () => {
    const { client, username } = await signIn();
    const idempotencyKey = `order-${randomUUID()}`;
    await callTool(client, 'addToWatchlist', { subject: { movieId: '23' }, idempotencyKey });
    const other = await callTool(client, 'addToWatchlist', { subject: { movieId: '24' }, idempotencyKey });
    expect(other.isError).toBe(true);
    expect(other.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      retryable: false,
      extensions: { field: 'idempotencyKey' },
    });
    expect(other.structuredContent.errors[0]!.message).toContain(`"${idempotencyKey}"`);
    // Another tool with the same key is "another call" too.
    const otherTool = await callTool(client, 'createReview', {
      input: { subject: { movieId: '23' }, score: 7 },
      idempotencyKey,
    });
    expect(otherTool.structuredContent.errors[0]!.classification).toBe('BAD_REQUEST');
    expect(await rows(username)).toBe(1);
    expect(await rows(username, 'reviews')).toBe(0);
  });

  it('keys belong to their caller: another user with the same key and arguments writes their own', async () => {
    const a = await signIn();
    const b = await signIn();
    const args = { subject: { movieId: '25' }, idempotencyKey: 'shared-key-1' };
    const first = await callTool<{ id: string }>(a.client, 'addToWatchlist', args);
    const second = await callTool<{ id: string }>(b.client, 'addToWatchlist', args);
    expect(second.isError).toBe(false);
    expect(second.structuredContent.data.id).not.toBe(first.structuredContent.data.id);
    expect([await rows(a.username), await rows(b.username)]).toEqual([1, 1]);
  });

  it('the key may ride in _meta; _meta and the argument must agree', async () => {
    const { client, username } = await signIn();
    const key = randomUUID();
    const call = async (args: Record<string, unknown>, meta: Record<string, unknown>) =>
      (await client.callTool({ name: 'addToWatchlist', arguments: args, _meta: meta })) as unknown as {
        structuredContent: Envelope;
        _meta?: Record<string, unknown>;
      };
    const first = await call({ subject: { movieId: '26' } }, { 'io.moviedb/idempotency-key': key });
    const again = await call({ subject: { movieId: '26' } }, { 'io.moviedb/idempotency-key': key });
    // The argument with the same key is the same call.
    const viaArgument = await callTool(client, 'addToWatchlist', {
      subject: { movieId: '26' },
      idempotencyKey: key,
    });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(viaArgument.structuredContent).toEqual(first.structuredContent);
    expect(await rows(username)).toBe(1);
    const disagree = await call(
      { subject: { movieId: '27' }, idempotencyKey: 'one' },
      { 'io.moviedb/idempotency-key': 'two' },
    );
    const notString = await call({ subject: { movieId: '27' } }, { 'io.moviedb/idempotency-key': 42 });
    const tooLong = await call(
      { subject: { movieId: '27' } },
      { 'io.moviedb/idempotency-key': 'k'.repeat(129) },
    );
    for (const refused of [disagree, notString, tooLong]) {
      expect(refused.structuredContent.errors[0]).toMatchObject({
        classification: 'BAD_REQUEST',
        extensions: { field: 'idempotencyKey' },
      });
    }
    expect(await rows(username)).toBe(1);
  });

  it('a key outside the bounds (length, characters) is refused by the tool’s inputSchema', async () => {
    const { client, username } = await signIn();
    for (const idempotencyKey of ['', 'x'.repeat(129), 'has space', 'naïve', 'a\u0000b', '<key>']) {
      const result = await callTool(client, 'addToWatchlist', { subject: { movieId: '28' }, idempotencyKey });
      expect(result.structuredContent.errors[0], JSON.stringify(idempotencyKey)).toMatchObject({
        classification: 'BAD_REQUEST',
        extensions: { field: 'idempotencyKey' },
      });
    }
    expect(await rows(username)).toBe(0);
  });

  it('a write that failed stored nothing: repeating its key runs it again', async () => {
    const { client, username } = await signIn();
    const idempotencyKey = randomUUID();
    const missing = await callTool(client, 'addToWatchlist', {
      subject: { movieId: '999999' },
      idempotencyKey,
    });
    expect(missing.structuredContent.errors[0]!.classification).toBe('NOT_FOUND');
    expect(await server.count('idempotency_keys', `idempotency_key = '${idempotencyKey}'`)).toBe(0);
    const again = await callTool(client, 'addToWatchlist', {
      subject: { movieId: '999999' },
      idempotencyKey,
    });
    expect(again._meta?.['io.moviedb/idempotent-replay']).toBeUndefined();
    expect(await rows(username)).toBe(0);
  });

  it('a 2026-07-28 client gets the same: one row, the first answer again', async () => {
    const { token, username } = await server.newUser();
    const modern = await connectModernClient(server.url, { authorization: `Bearer ${token}` });
    try {
      const args = { subject: { movieId: '31' }, idempotencyKey: randomUUID() };
      const first = await modern.callTool({ name: 'addToWatchlist', arguments: args });
      const again = await modern.callTool({ name: 'addToWatchlist', arguments: args });
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(await rows(username)).toBe(1);
    } finally {
      await modern.close();
    }
  });

  describe('on /graphql with the Idempotency-Key header', () => {
    const ADD = 'mutation ($id: ID!) { addToWatchlist(subject: {movieId: $id}) { id status } }';
    const post = (token: string, key: string | undefined, id = '32', query = ADD) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: JSON.stringify({ query, variables: { id } }),
      });

    it('a repeat answers the same body with Idempotent-Replayed, writing one row; the quoted form is the same key', async () => {
      const { token, username } = await server.newUser();
      const key = randomUUID();
      const first = await post(token, key);
      const firstBody = await first.json();
      const again = await post(token, `"${key}"`);
      expect(await again.json()).toEqual(firstBody);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await rows(username)).toBe(1);
    });

    it('the key is shared with the tools: a tool call with the same key is another call', async () => {
      const { token, username } = await server.newUser();
      const key = randomUUID();
      await (await post(token, key, '33')).json();
      const client = await connectClient(server.url, token);
      clients.push(client);
      const tool = await callTool(client, 'addToWatchlist', {
        subject: { movieId: '33' },
        idempotencyKey: key,
      });
      expect(tool.structuredContent.errors[0]!.classification).toBe('BAD_REQUEST');
      expect(await rows(username)).toBe(1);
    });

    it('other variables are BAD_REQUEST naming the key; a malformed key is BAD_REQUEST before anything runs', async () => {
      const { token, username } = await server.newUser();
      const key = randomUUID();
      await (await post(token, key, '34')).json();
      const other = (await (await post(token, key, '35')).json()) as {
        errors: { message: string; extensions: object }[];
      };
      expect(other.errors[0]!.extensions).toMatchObject({
        classification: 'BAD_REQUEST',
        field: 'idempotencyKey',
      });
      expect(other.errors[0]!.message).toContain(key);
      for (const bad of ['', 'x'.repeat(200), 'a b', 'k1, k2']) {
        const response = await post(token, bad, '36');
        const body = (await response.json()) as { errors: { extensions: object }[] };
        expect(response.status).toBeLessThan(500);
        expect(body.errors[0]!.extensions).toMatchObject({ classification: 'BAD_REQUEST' });
      }
      expect(await rows(username)).toBe(1);
    });

    it('a keyed write that also calls register or login is a BAD_REQUEST naming the key: nothing runs, no token is kept', async () => {
      const { token, username } = await server.newUser();
      const newcomer = `newcomer_${randomUUID().slice(0, 8)}`;
      const documents = [
        {
          query: `mutation ($id: ID!, $input: RegisterInput!) {
            addToWatchlist(subject: {movieId: $id}) { id } register(input: $input) { token }
          }`,
          variables: {
            id: '37',
            input: { username: newcomer, email: `${newcomer}@example.com`, password: 'secret123' },
          },
        },
        {
          query: `mutation ($id: ID!, $login: LoginInput!) { ...Both }
            fragment Both on Mutation { addToWatchlist(subject: {movieId: $id}) { id } again: login(input: $login) { token } }`,
          variables: { id: '37', login: { username, password: 'secret123' } },
        },
      ];
      const send = (body: object, key?: string) =>
        fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${token}`,
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: JSON.stringify(body),
        });
      for (const document of documents) {
        const key = randomUUID();
        const response = await send(document, key);
        const body = (await response.json()) as {
          data?: unknown;
          errors: { message: string; extensions: object }[];
        };
        expect(response.status).toBe(200);
        expect(body.data).toBeNull();
        expect(body.errors[0]!.extensions).toMatchObject({
          classification: 'BAD_REQUEST',
          field: 'idempotencyKey',
        });
        expect(body.errors[0]!.message).toMatch(/register or login/);
        expect(await server.count('idempotency_keys', `idempotency_key = '${key}'`)).toBe(0);
      }
      expect(await rows(username)).toBe(0);
      expect(await server.count('users', `username = '${newcomer}'`)).toBe(0);
      // Without the key the same call runs (and issues its token); the table never holds a token.
      const unkeyed = (await (await send(documents[0]!)).json()) as { data: { register: { token: string } } };
      const issued = unkeyed.data.register.token;
      expect(issued).toMatch(/^ey/);
      expect(await server.count('idempotency_keys', `result like '%${issued}%'`)).toBe(0);
      expect(await server.count('idempotency_keys', `result like '%"token"%'`)).toBe(0);
    });

    it('queries and anonymous callers ignore a well-formed key', async () => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' },
        body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
      });
      expect(await response.json()).toEqual({ data: { movie: { title: 'The Shawshank Redemption' } } });
    });
  });
});
