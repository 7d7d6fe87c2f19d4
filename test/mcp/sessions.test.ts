/**
 * Session caps (docs/mcp.md, Session caps): per principal (a signed-in user, or the address of anonymous callers)
 * below a global cap where the least recently used idle session gives way; no slot leaks on error paths.
 * Client addresses are played with local addresses 127.0.0.x, all of which reach a loopback server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
