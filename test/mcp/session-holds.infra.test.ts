/**
 * Holds on 2025 sessions in Redis, through the front door, with a proxy between the server and Redis
 * that keeps Redis's answers or stalls it: a request whose client goes away while its session call to
 * Redis is pending releases its hold all the same (initialize, a POST on the lean path and on the SDK's,
 * a GET stream), and commands a stall delivered late pin nothing. Busy is read from Redis itself: a
 * session is busy while a request holds it (a lease that has not lapsed); each scenario first sees its
 * sessions busy while Redis keeps its answers, so the reading is of the keys the store writes.
 */
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { sessionKeys } from '../../src/shared-state/redis-session-store.js';
import { INITIALIZE, MCP_HEADERS, openSession } from '../helpers/mcp.js';
import { startHoldingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { openStream, raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { outlast } from '../helpers/time.js';

const available = await redisAvailable();
if (!available) console.warn(`session-holds tests skipped: no Redis answers at ${REDIS_URL}`);
const RUN = runPrefix();
let namespaces = 0;
afterAll(() => available && dropKeys(RUN));

const CALL = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'getMovie', arguments: { id: '1' } },
};
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const PROBE_CLIENT = 'half-closed-probe';

/**
 * Sessions of `namespace` that a request holds, as Redis sees them now: those whose hash
 * (src/shared-state/redis-session-store.ts) has a lease `l:<hold>` that has not lapsed, the rule the
 * store's own scripts apply.
 */
async function busySessions(redis: Redis, namespace: string, among?: string[]): Promise<number> {
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Number(micros) / 1000;
  const ids = among ?? [];
  const table = sessionKeys(namespace);
  if (!among) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${table.session('*')}`, 'COUNT', 1000);
      ids.push(...keys.map((key) => key.slice(table.session('').length)));
      cursor = next;
    } while (cursor !== '0');
  }
  let busy = 0;
  for (const id of ids) {
    const fields = await redis.hgetall(table.session(id));
    const held = Object.entries(fields).some(
      ([field, lapsesAt]) => field.startsWith('l:') && Number(lapsesAt) > now,
    );
    if (held) busy += 1;
  }
  return busy;
}

interface Cut {
  socket: net.Socket;
  closed: Promise<void>;
}

/** Sends one HTTP request on a socket of its own; `halfClose` ends the client's side right after it. */
function send(
  server: TestServer,
  request: { method: string; headers: Record<string, string>; body?: string; from?: string },
  halfClose = false,
): Cut {
  const { port } = new URL(server.url);
  const socket = net.connect({
    host: '127.0.0.1',
    port: Number(port),
    localAddress: request.from ?? '127.0.0.1',
  });
  socket.on('error', () => undefined);
  socket.resume();
  const body = request.body ?? '';
  const head = [
    `${request.method} /mcp HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    ...(request.body !== undefined ? [`content-length: ${Buffer.byteLength(body)}`] : []),
  ].join('\r\n');
  socket.write(`${head}\r\n\r\n${body}`);
  if (halfClose) socket.end();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, closed };
}

describe.skipIf(!available)('session holds with Redis behind a proxy that keeps its answers', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(extra: Env = {}) {
    const target = new URL(REDIS_URL);
    const proxy = await startHoldingProxy(target.hostname, Number(target.port || 6379));
    cleanups.push(() => proxy.close());
    const namespace = `${RUN}-${++namespaces}`;
    const server = await startTestServer('sqlite', {
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: namespace,
        MCP_MAX_SESSIONS: '100',
        MCP_MAX_SESSIONS_PER_ADDRESS: '10',
        MCP_MAX_SESSIONS_PER_USER: '10',
        ...extra,
      },
    });
    cleanups.push(() => server.stop());
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => redis.disconnect());
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${server.url}/readyz`)).json()) as { checks: { redis?: string } }).checks
            .redis,
      )
      .toBe('ok');
    return { proxy, server, redis, namespace };
  }

  /** Waits until the server has sent `count` Redis calls naming `markers`, then cuts every client. */
  async function cutOnceSent(
    proxy: HoldingProxy,
    server: TestServer,
    cuts: Cut[],
    markers: string[],
    count: number,
  ) {
    await expect
      .poll(() => markers.reduce((sum, marker) => sum + proxy.sentCount(marker), 0), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(count);
    for (const { socket } of cuts) socket.destroy();
    await Promise.all(cuts.map(({ closed }) => closed));
    // A later request answered: the server has read the cuts that came before it.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }

  it('100 anonymous initializes from 10 addresses, each half-closed after sending while Redis keeps its answers, leave no session busy, and a signed-in user still opens a session (the global-lockout flood)', async () => {
    const { proxy, server, redis, namespace } = await setUp();
    const token = await server.login('user', 'user123');
    proxy.holdAnswers();
    const body = JSON.stringify({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, clientInfo: { name: PROBE_CLIENT, version: '1' } },
    });
    const cuts: Cut[] = [];
    for (let address = 1; address <= 10; address += 1)
      for (let i = 0; i < 10; i += 1)
        cuts.push(
          send(server, { method: 'POST', headers: MCP_HEADERS, body, from: `127.0.0.${20 + address}` }, true),
        );
    await expect.poll(() => proxy.sentCount(PROBE_CLIENT), { timeout: 20_000 }).toBe(100);
    await expect.poll(() => busySessions(redis, namespace)).toBeGreaterThan(0);
    await Promise.all(cuts.map(({ closed }) => closed));
    proxy.release();
    await expect.poll(() => busySessions(redis, namespace), { timeout: 15_000 }).toBe(0);
    const admin = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(admin.status).toBe(200);
  });

  it.each([
    ['a plain tools/call (the lean path)', CALL],
    ['a tools/list (the SDK path)', LIST],
  ])(
    '100 POSTs of %s cut while Redis keeps the answer to their session lookup leave none of the 10 sessions busy, and the user opens an 11th',
    async (_kind, message) => {
      const { proxy, server, redis, namespace } = await setUp();
      const token = await server.login('user', 'user123');
      const sessions = await Promise.all(
        Array.from({ length: 10 }, () => openSession(server.url, { token })),
      );
      proxy.holdAnswers();
      const cuts = sessions.flatMap((sessionId) =>
        Array.from({ length: 10 }, () =>
          send(server, {
            method: 'POST',
            headers: {
              ...MCP_HEADERS,
              authorization: `Bearer ${token}`,
              'mcp-session-id': sessionId,
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify(message),
          }),
        ),
      );
      await cutOnceSent(proxy, server, cuts, sessions, 100);
      await expect.poll(() => busySessions(redis, namespace, sessions)).toBeGreaterThan(0);
      proxy.release();
      await expect.poll(() => busySessions(redis, namespace, sessions), { timeout: 15_000 }).toBe(0);
      expect(await openSessionStatus(server, token)).toBe(200);
    },
  );

  it('100 GET streams cut while Redis keeps the answer to their session lookup leave none of the 10 sessions busy, and each session can listen again', async () => {
    const { proxy, server, redis, namespace } = await setUp();
    const sessions = await Promise.all(Array.from({ length: 10 }, () => openSession(server.url)));
    proxy.holdAnswers();
    const cuts = sessions.flatMap((sessionId) =>
      Array.from({ length: 10 }, () =>
        send(server, {
          method: 'GET',
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
        }),
      ),
    );
    await cutOnceSent(proxy, server, cuts, sessions, 100);
    await expect.poll(() => busySessions(redis, namespace, sessions)).toBeGreaterThan(0);
    proxy.release();
    await expect.poll(() => busySessions(redis, namespace, sessions), { timeout: 15_000 }).toBe(0);
    const statuses: number[] = [];
    for (const sessionId of sessions) {
      const stream = await openStream(`${server.url}/mcp`, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      });
      statuses.push(stream.status);
      stream.close();
    }
    expect(statuses).toEqual(sessions.map(() => 200));
  });

  it('a 2 s Redis stall with 8 calls in flight leaves none of their sessions busy once it clears, while another session listens throughout', async () => {
    const { proxy, server, redis, namespace } = await setUp();
    const listener = await openSession(server.url);
    const stream = await openStream(`${server.url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': listener,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(stream.status).toBe(200);
    cleanups.push(async () => stream.close());
    const sessions = await Promise.all(Array.from({ length: 8 }, () => openSession(server.url)));
    const stallMs = 2000;
    const stalled = Date.now();
    proxy.stall();
    const answers = await Promise.all(
      sessions.map((sessionId) =>
        raw(`${server.url}/mcp`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify(CALL),
        }),
      ),
    );
    // Redis timed out for each of them: a clear, retryable refusal.
    expect(answers.map((answer) => answer.status)).toEqual(sessions.map(() => 503));
    await outlast(stalled + stallMs - Date.now(), "the stall's length is the scenario's input");
    proxy.release();
    await expect.poll(() => busySessions(redis, namespace, sessions), { timeout: 15_000 }).toBe(0);
    expect(await busySessions(redis, namespace, [listener])).toBe(1);
  });
});

async function openSessionStatus(server: TestServer, token: string): Promise<number> {
  const response = await raw(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify(INITIALIZE),
  });
  return response.status;
}
