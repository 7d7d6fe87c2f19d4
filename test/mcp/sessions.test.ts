/**
 * Session caps (docs/mcp.md, Session caps): per principal (a signed-in user, or the address of anonymous callers)
 * below a global cap where the least recently used idle session gives way; no slot leaks on error paths.
 * Client addresses are played with local addresses 127.0.0.x, all of which reach a loopback server.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMemorySessionStore } from '../../src/shared-state/memory-session-store.js';
import { createRedisBus } from '../../src/shared-state/redis-bus.js';
import { createRedisSessionStore } from '../../src/shared-state/redis-session-store.js';
import type { SessionStore } from '../../src/shared-state/session-store.js';
import { INITIALIZE, MCP_HEADERS, openSession } from '../helpers/mcp.js';
import { openStream, raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

function initialize(server: TestServer, from = '127.0.0.1', token?: string) {
  return raw(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(INITIALIZE),
    localAddress: from,
  });
}

function list(server: TestServer, sessionId: string, from = '127.0.0.1') {
  return raw(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: LIST,
    localAddress: from,
  });
}

describe.each(dialects)('MCP session caps (%s)', (dialect) => {
  describe('per principal', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(dialect, {
        env: { MCP_MAX_SESSIONS: '40', MCP_MAX_SESSIONS_PER_ADDRESS: '5', MCP_MAX_SESSIONS_PER_USER: '3' },
      });
    });
    afterAll(() => server.stop());

    it('a flood of 1,000 anonymous initialize requests from one address only ever displaces its own sessions: it holds 5 at most, and others still open theirs', async () => {
      const bystander = await openSession(server.url, { from: '127.0.0.3' });
      const { token } = await server.newUser();
      const signedIn = await openSession(server.url, { from: '127.0.0.2', token });
      const opened: string[] = [];
      const statuses: number[] = [];
      for (let batch = 0; batch < 20; batch += 1) {
        const responses = await Promise.all(
          Array.from({ length: 50 }, () => initialize(server, '127.0.0.2')),
        );
        for (const response of responses) {
          statuses.push(response.status);
          if (response.status === 200) opened.push(response.headers['mcp-session-id'] as string);
          // Sessions still being created cannot give way: a burst beyond the cap is refused, classified.
          else
            expect([
              response.status,
              response.headers['retry-after'],
              JSON.parse(response.body),
            ]).toMatchObject([
              429,
              '10',
              { error: { code: -32000, data: { classification: 'RATE_LIMITED' } } },
            ]);
        }
      }
      expect(statuses.length).toBe(1000);
      expect(opened.length).toBeGreaterThanOrEqual(5);
      // Each new session of the flooder evicted its own least recently used one: 5 at most are alive.
      const alive = [];
      for (const id of opened) if ((await list(server, id, '127.0.0.2')).status === 200) alive.push(id);
      expect(alive.length).toBeLessThanOrEqual(5);
      expect(alive.length).toBeGreaterThan(0);
      // The bystander's and the signed-in user's sessions were never touched, and new ones still open.
      expect((await list(server, bystander, '127.0.0.3')).status).toBe(200);
      const session = await raw(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          'mcp-session-id': signedIn,
          'mcp-protocol-version': '2025-11-25',
          authorization: `Bearer ${token}`,
        },
        body: LIST,
        localAddress: '127.0.0.2',
      });
      expect(session.status).toBe(200);
      await openSession(server.url, { from: '127.0.0.3' });
      await openSession(server.url, { from: '127.0.0.2', token });
    });

    it('a signed-in user holds at most MCP_MAX_SESSIONS_PER_USER sessions, from any address: a new one displaces the least recently used idle one; with all busy it is 429', async () => {
      const { token } = await server.newUser();
      const as = (id: string) => ({
        ...MCP_HEADERS,
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${token}`,
      });
      const ids = [
        await openSession(server.url, { from: '127.0.0.4', token }),
        await openSession(server.url, { from: '127.0.0.5', token }),
        await openSession(server.url, { from: '127.0.0.6', token }),
      ];
      // ids[0] is used again, so ids[1] is the least recently used.
      expect(
        (await raw(`${server.url}/mcp`, { method: 'POST', headers: as(ids[0]!), body: LIST })).status,
      ).toBe(200);
      const fourth = await openSession(server.url, { from: '127.0.0.7', token });
      const statusOf = async (id: string) =>
        (await raw(`${server.url}/mcp`, { method: 'POST', headers: as(id), body: LIST })).status;
      expect(await statusOf(ids[1]!)).toBe(404);
      for (const id of [ids[0]!, ids[2]!, fourth]) expect(await statusOf(id)).toBe(200);

      // Each of the user's sessions has a request in flight (its listening stream): none may give way.
      const streams = await Promise.all(
        [ids[0]!, ids[2]!, fourth].map((id) =>
          openStream(`${server.url}/mcp`, { headers: { ...as(id), accept: 'text/event-stream' } }),
        ),
      );
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
      const refused = await initialize(server, '127.0.0.7', token);
      expect([refused.status, refused.headers['retry-after']]).toEqual([429, '10']);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { data: { classification: 'RATE_LIMITED' } } });
      for (const stream of streams) stream.close();
    });

    it('initialize requests the transport refuses (wrong Accept) leave no slot behind', async () => {
      for (let i = 0; i < 20; i += 1) {
        const refused = await raw(`${server.url}/mcp`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, accept: 'application/json' },
          body: JSON.stringify(INITIALIZE),
          localAddress: '127.0.0.8',
        });
        expect(refused.status).toBe(406);
      }
      // No slot was leaked: five sessions fit, and none of them had to give way to another.
      const ids = [];
      for (let i = 0; i < 5; i += 1) ids.push(await openSession(server.url, { from: '127.0.0.8' }));
      for (const id of ids) expect((await list(server, id, '127.0.0.8')).status).toBe(200);
    });
  });

  describe('at the global cap', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(dialect, {
        env: { MCP_MAX_SESSIONS: '4', MCP_MAX_SESSIONS_PER_ADDRESS: '4' },
      });
    });
    afterAll(() => server.stop());

    it('the least recently used idle session is evicted for a newcomer; with every session busy it is 503 + Retry-After', async () => {
      const [a, b, c, d] = [
        await openSession(server.url, { from: '127.0.1.1' }),
        await openSession(server.url, { from: '127.0.1.2' }),
        await openSession(server.url, { from: '127.0.1.3' }),
        await openSession(server.url, { from: '127.0.1.4' }),
      ];
      // a is used again, so b is now the least recently used.
      expect((await list(server, a!, '127.0.1.1')).status).toBe(200);
      const e = await openSession(server.url, { from: '127.0.1.5' });
      expect((await list(server, b!, '127.0.1.2')).status).toBe(404);
      for (const id of [a!, c!, d!, e]) expect((await list(server, id)).status).toBe(200);

      // Each session now has a request in flight (its listening stream): none may be evicted.
      const streams = await Promise.all(
        [a!, c!, d!, e].map((id) =>
          openStream(`${server.url}/mcp`, {
            headers: {
              accept: 'text/event-stream',
              'mcp-session-id': id,
              'mcp-protocol-version': '2025-11-25',
            },
          }),
        ),
      );
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
      const full = await initialize(server, '127.0.1.6');
      expect(full.status).toBe(503);
      expect(full.headers['retry-after']).toBe('30');
      expect(JSON.parse(full.body)).toMatchObject({ error: { data: { classification: 'UNAVAILABLE' } } });

      // One stream ends: its session is idle again, so it is the one that gives way.
      streams[1]!.close();
      await expect.poll(async () => (await initialize(server, '127.0.1.6')).status).toBe(200);
      expect((await list(server, c!)).status).toBe(404);
      expect((await list(server, a!)).status).toBe(200);
      for (const stream of streams) stream.close();
    });
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
type StoreUnderTest = [string, () => Promise<{ store: SessionStore; close(): Promise<void> }>];
const stores: StoreUnderTest[] = [
  [
    'memory',
    async () => {
      const store = createMemorySessionStore(CAPS, createLogger('silent'));
      return { store, close: () => store.close() };
    },
  ],
  ...(redisUrl
    ? ([
        [
          'redis',
          async () => {
            const client = new Redis(redisUrl);
            const namespace = `moviedb-test-${randomBytes(6).toString('hex')}`;
            const logger = createLogger('silent');
            const bus = createRedisBus(client, logger);
            const store = createRedisSessionStore({
              ...CAPS,
              client,
              bus,
              namespace,
              replicaId: 'r1',
              logger,
            });
            return {
              store,
              async close() {
                await store.close();
                await bus.close();
                const keys = await client.keys(`${namespace}:*`);
                if (keys.length > 0) await client.del(...keys);
                client.disconnect();
              },
            };
          },
        ],
      ] satisfies StoreUnderTest[])
    : []),
];

const CAPS = { maxSessions: 3, maxPerUser: 2, maxPerAddress: 2, idleMs: 60_000 };
const record = (id: string, principal: string, owner: string | null = null) => ({
  id,
  owner,
  principal,
  protocolVersion: '2025-11-25',
  clientCapabilities: {},
  clientInfo: { name: 't', version: '1' },
});

describe.each(stores)('the session store (%s)', (_name, create) => {
  it('binds a session to its owner, evicts the least recently used idle one at a cap, refuses only when all candidates are busy, and deletes', async () => {
    const { store, close } = await create();
    try {
      const closed: string[] = [];
      store.onClosed((id) => closed.push(id));
      const opened = async (id: string, principal: string, owner: string | null = null) => {
        const outcome = await store.open(record(id, principal, owner));
        if (!('hold' in outcome)) throw new Error(`refused: ${outcome.refusal}`);
        return outcome.hold;
      };
      (await opened('a1', 'address:a')).release();
      (await opened('a2', 'address:a')).release();
      expect(await store.use('a1', 'someone')).toBeUndefined();
      const used = await store.use('a1', null);
      expect(used?.record).toMatchObject({ id: 'a1', principal: 'address:a', protocolVersion: '2025-11-25' });
      used!.hold.release();
      // a2 is now the least recently used of address:a: it gives way to a3.
      (await opened('a3', 'address:a')).release();
      await expect.poll(async () => (await store.use('a2', null)) === undefined).toBe(true);
      // Both remaining sessions of address:a busy: a fourth is refused, at the principal's cap.
      const busy = [(await store.use('a1', null))!.hold, (await store.use('a3', null))!.hold];
      expect(await store.open(record('a4', 'address:a'))).toEqual({ refusal: 'principal-cap' });
      // The global cap (3): u1 fills it; u2 finds everyone busy but u1, the least recently used idle one.
      (await opened('u1', 'user:u', 'u')).release();
      const u2 = await opened('u2', 'user:u', 'u');
      expect(await store.use('u1', 'u')).toBeUndefined();
      expect(await store.open(record('v1', 'user:v', 'v'))).toEqual({ refusal: 'full' });
      u2.release();
      busy.forEach((hold) => hold.release());
      expect(await store.delete('u2', 'intruder')).toBe(false);
      expect(await store.delete('u2', 'u')).toBe(true);
      expect(await store.use('u2', 'u')).toBeUndefined();
      await expect.poll(() => closed.includes('u2')).toBe(true);
    } finally {
      await close();
    }
  });
});
