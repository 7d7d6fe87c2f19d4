/**
 * 2025-era sessions shared through Redis (docs/mcp.md, Sessions across replicas), through the front door:
 * two server instances sharing REDIS_URL and a key prefix, as two replicas behind a load balancer without
 * affinity. A session opened on one is served, bound to its owner, deleted and expired on the other; with
 * Redis away, session requests get a clear 503 while 2026-07-28 requests and /graphql go on. Calls held
 * across replicas: shared-session-calls.infra.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { sessionKeys } from '../../src/shared-state/redis-session-store.js';
import { openSession } from '../helpers/mcp.js';
import { modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { routedClient } from '../helpers/routed-client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { LIST, postToSession, streamHeaders } from '../helpers/session-requests.js';
import { SHARED_RUN, sharedEnv, untilRedis } from '../helpers/shared-redis-env.js';
import { openSse } from '../helpers/sse.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const available = await redisAvailable();
if (!available) console.warn(`shared-sessions tests skipped: no Redis answers at ${REDIS_URL}`);
afterAll(() => available && dropKeys(SHARED_RUN));

describe.skipIf(!available)('2025 sessions shared through Redis', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function replica(env: Env): Promise<TestServer> {
    const server = await startTestServer('sqlite', { env });
    cleanups.push(() => server.stop());
    await untilRedis(server, 'ok');
    return server;
  }

  it('a session opened on A is served on B, by a real client alternating between them, and only for its owner; DELETE on B ends it on A', async () => {
    const env = sharedEnv();
    const [a, b] = [await replica(env), await replica(env)];
    const token = await a.login('user', 'user123');
    const intruder = await b.login('mara', 'password');

    const served: string[] = [];
    let turn = 0;
    const { client, transport } = routedClient(
      () => {
        const base = turn++ % 2 === 0 ? a.url : b.url;
        served.push(base);
        return base;
      },
      { cutCalls: false, token },
    );
    await client.connect(transport);
    for (let i = 0; i < 3; i += 1) {
      expect((await client.listTools()).tools.length).toBe(9);
      const result = (await client.callTool({ name: 'getMovie', arguments: { id: '1' } })) as unknown as {
        structuredContent: { data: { title: string } };
      };
      expect(result.structuredContent.data.title).toBe('The Shawshank Redemption');
    }
    expect(served.filter((url) => url === a.url).length).toBeGreaterThanOrEqual(3);
    expect(served.filter((url) => url === b.url).length).toBeGreaterThanOrEqual(3);
    const sessionId = transport.sessionId!;
    await client.close();

    // Bound to its owner on B too: another user, or no token, finds no such session.
    expect((await postToSession(b.url, sessionId, LIST, intruder)).status).toBe(404);
    expect((await postToSession(b.url, sessionId, LIST)).status).toBe(404);
    const foreignDelete = await raw(`${b.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${intruder}` },
    });
    expect(foreignDelete.status).toBe(404);
    expect((await postToSession(a.url, sessionId, LIST, token)).status).toBe(200);

    // An open listening stream on A ends when B deletes the session.
    const listening = await openSse(`${a.url}/mcp`, {
      headers: { ...streamHeaders(sessionId), authorization: `Bearer ${token}` },
    });
    expect(listening.status).toBe(200);
    const deleted = await raw(`${b.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(200);
    await listening.ended;
    expect((await postToSession(a.url, sessionId, LIST, token)).status).toBe(404);
    expect((await postToSession(b.url, sessionId, LIST, token)).status).toBe(404);
  });

  it('an idle session expires in Redis by its TTL: then 404 on every replica, its key gone', async () => {
    const env = sharedEnv({ MCP_SESSION_IDLE_SECONDS: '1' });
    const [a, b] = [await replica(env), await replica(env)];
    const sessionId = await openSession(a.url);
    expect((await postToSession(b.url, sessionId, LIST)).status).toBe(200);
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => redis.disconnect());
    const key = sessionKeys(env.REDIS_KEY_PREFIX!).session(sessionId);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    await expect.poll(() => redis.exists(key), { timeout: 10_000, interval: 200 }).toBe(0);
    expect((await postToSession(a.url, sessionId, LIST)).status).toBe(404);
    expect((await postToSession(b.url, sessionId, LIST)).status).toBe(404);
  });

  it('with Redis away, 2025 session requests are 503 UNAVAILABLE with Retry-After (never a hang, never a local session); 2026-07-28 and /graphql go on; sessions come back with Redis', async () => {
    const [host, port] = [new URL(REDIS_URL).hostname, Number(new URL(REDIS_URL).port || 6379)];
    const proxy: TcpProxy = await startTcpProxy(host, port);
    cleanups.push(() => proxy.close());
    const server = await replica(sharedEnv({}, `redis://127.0.0.1:${proxy.port}`));
    const sessionId = await openSession(server.url);

    proxy.down();
    await untilRedis(server, 'down');
    const refusals = [
      await postToSession(server.url, undefined, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
      await postToSession(server.url, sessionId, LIST),
      // A plain tools/call: the node:http front's to serve, its refusal Express's to answer.
      await postToSession(server.url, sessionId, {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'getMovie', arguments: { id: '1' } },
      }),
      await raw(`${server.url}/mcp`, { headers: streamHeaders(sessionId) }),
      await raw(`${server.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }),
    ];
    for (const refusal of refusals) {
      expect([refusal.status, refusal.headers['retry-after']]).toEqual([503, '5']);
      expect(JSON.parse(refusal.body)).toMatchObject({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: expect.stringMatching(/session state is unavailable.*2026-07-28.*stateless/s),
          data: { classification: 'UNAVAILABLE', retryable: true },
        },
      });
    }
    const modern = modernRequest(5, 'tools/call', { name: 'getMovie', arguments: { id: '1' } });
    const answer = await raw(`${server.url}/mcp`, { method: 'POST', ...modern });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('The Shawshank Redemption');
    expect((await server.graphql('{ movie(id: "1") { title } }')).body.data).toEqual({
      movie: { title: 'The Shawshank Redemption' },
    });

    proxy.up();
    await untilRedis(server, 'ok');
    expect((await postToSession(server.url, sessionId, LIST)).status).toBe(200);
  });
});
