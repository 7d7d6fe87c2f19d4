/**
 * 2025-era sessions shared through Redis (docs/mcp.md, Sessions across replicas), through the front door: two server instances
 * sharing REDIS_URL and a key prefix, as two replicas behind a load balancer without affinity. A session
 * opened on one is served, bound to its owner, deleted and expired on the other; a cancellation sent to
 * one aborts a call running on the other; a response stream cut on one is resumed with Last-Event-ID on
 * the other, and a call whose replica died answers UNAVAILABLE there instead of hanging; with Redis away,
 * session requests get a clear 503 while 2026-07-28 requests and /graphql go on. Also resumption without
 * Redis (the in-process event store). Calls are held slow by stalling a PostgreSQL proxy, so those cases
 * need TEST_DATABASE_URL as well.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { sessionKeys } from '../../src/shared-state/redis-session-store.js';
import { spawnCli, waitForLine } from '../helpers/cli.js';
import { MCP_HEADERS, openSession } from '../helpers/mcp.js';
import { modernRequest } from '../helpers/mcp-modern.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import { raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { TEST_JWT_SECRET, startTestServer, type TestServer } from '../helpers/server.js';
import { messagesIn, openSse, parseSse } from '../helpers/sse.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const available = await redisAvailable();
if (!available) console.warn(`shared-sessions tests skipped: no Redis answers at ${REDIS_URL}`);
const RUN = runPrefix();
let namespaces = 0;
afterAll(() => available && dropKeys(RUN));

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const toolCall = (
  id: number,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

function post(url: string, sessionId: string | undefined, body: unknown, token?: string) {
  return raw(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

function streamHeaders(sessionId: string, lastEventId?: string): Record<string, string> {
  return {
    accept: 'text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  };
}

async function redisState(server: TestServer): Promise<string | undefined> {
  const body = (await (await fetch(`${server.url}/readyz`)).json()) as { checks?: { redis?: string } };
  return body.checks?.redis;
}

const untilRedis = (server: TestServer, state: 'ok' | 'down') =>
  expect.poll(() => redisState(server), { timeout: 10_000, interval: 100 }).toBe(state);

/** Shares one Redis namespace (fresh per call) between the servers given this env. */
function sharedEnv(extra: Env = {}, redisUrl = REDIS_URL): Env {
  return { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `${RUN}-${++namespaces}`, ...extra };
}

/** The audit lines of a tool on a proxied server. */
const auditOf = (env: ProxiedServer, tool: string) =>
  env.logs.lines().filter((line) => line.audit === 'tool_call' && line.tool === tool);

/**
 * A v1 SDK client (2025-11-25) whose requests go where `route` says, and whose tools/call response
 * streams are cut right after their priming event when `cutCalls` is on: a real client resuming for real.
 */
function routedClient(
  route: (method: string, resuming: boolean) => string,
  options: { cutCalls: boolean; token?: string },
) {
  const resumes: string[] = [];
  const routed: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const resuming = headers.has('last-event-id');
    const base = route(init?.method ?? 'GET', resuming);
    if (resuming) resumes.push(base);
    const url = `${base}/mcp`;
    const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (!options.cutCalls || !isCall) return fetch(url, init);
    const controller = new AbortController();
    init?.signal?.addEventListener('abort', () => controller.abort());
    const response = await fetch(url, { ...init, signal: controller.signal });
    const reader = response.body!.getReader();
    let seen = '';
    let cut = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (cut) {
          controller.abort();
          stream.error(new TypeError('terminated: the test cut the stream'));
          return;
        }
        const { value, done } = await reader.read();
        if (done) return stream.close();
        seen += new TextDecoder().decode(value);
        stream.enqueue(value);
        if (/^id: .+$/m.test(seen) && seen.includes('\n\n')) cut = true;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const client = new Client({ name: 'moviedb-mcp-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://replicas.invalid/mcp'), {
    fetch: routed,
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  return { client, transport, resumes };
}

/**
 * A plain tools/call (the lean path: no progressToken) on a session of `runOn`'s, held by a stalled
 * database until its stream is cut after the priming event, then resumed with Last-Event-ID on
 * `resumeOn`: the result must arrive there, and the call must have run once, to its end. Then a call
 * whose stream ended normally: nothing of it is kept, so a resume from its priming event is a 400.
 * Returns the priming event's id.
 */
async function cutPlainCallAndResume(
  running: ProxiedServer,
  resumeOn: string,
  sessionId: string,
): Promise<string> {
  const runOn = running.server.url;
  running.proxy.stall();
  const stream = await openSse(`${runOn}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
    body: JSON.stringify(toolCall(11, 'getMovie', { id: '4' })),
  });
  expect(stream.status).toBe(200);
  const primingId = await stream.firstEventId;
  stream.cut();
  // The call still waits for the stalled database while the cut reaches its server and `resumeOn`
  // takes up the stream: its 200 comes once it follows the call, whose result must then arrive there.
  const resumed = await openSse(`${resumeOn}/mcp`, { headers: streamHeaders(sessionId, primingId) });
  expect(resumed.status).toBe(200);
  running.proxy.resume();
  expect(messagesIn(await resumed.ended)).toEqual([
    {
      jsonrpc: '2.0',
      id: 11,
      result: expect.objectContaining({
        isError: false,
        structuredContent: expect.objectContaining({ data: expect.objectContaining({ id: '4' }) }),
      }),
    },
  ]);
  expect(auditOf(running, 'getMovie').map((line) => line.outcome)).toEqual(['OK']);

  const whole = await post(runOn, sessionId, toolCall(12, 'getMovie', { id: '5' }));
  expect(messagesIn(whole.body)).toMatchObject([{ id: 12, result: { isError: false } }]);
  const delivered = parseSse(whole.body)[0]!.id!;
  await expect
    .poll(async () => (await raw(`${resumeOn}/mcp`, { headers: streamHeaders(sessionId, delivered) })).status)
    .toBe(400);
  return primingId;
}

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
    expect((await post(b.url, sessionId, LIST, intruder)).status).toBe(404);
    expect((await post(b.url, sessionId, LIST)).status).toBe(404);
    const foreignDelete = await raw(`${b.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${intruder}` },
    });
    expect(foreignDelete.status).toBe(404);
    expect((await post(a.url, sessionId, LIST, token)).status).toBe(200);

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
    expect((await post(a.url, sessionId, LIST, token)).status).toBe(404);
    expect((await post(b.url, sessionId, LIST, token)).status).toBe(404);
  });

  it('an idle session expires in Redis by its TTL: then 404 on every replica, its key gone', async () => {
    const env = sharedEnv({ MCP_SESSION_IDLE_SECONDS: '1' });
    const [a, b] = [await replica(env), await replica(env)];
    const sessionId = await openSession(a.url);
    expect((await post(b.url, sessionId, LIST)).status).toBe(200);
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => redis.disconnect());
    const key = sessionKeys(env.REDIS_KEY_PREFIX!).session(sessionId);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    await expect.poll(() => redis.exists(key), { timeout: 10_000, interval: 200 }).toBe(0);
    expect((await post(a.url, sessionId, LIST)).status).toBe(404);
    expect((await post(b.url, sessionId, LIST)).status).toBe(404);
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
      await post(server.url, undefined, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
      await post(server.url, sessionId, LIST),
      // A plain tools/call: the node:http front's to serve, its refusal Express's to answer.
      await post(server.url, sessionId, {
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
    expect((await post(server.url, sessionId, LIST)).status).toBe(200);
  });
});

describe.skipIf(!available || !databaseUrl)('calls of a shared session held slow (postgres)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** A: on PostgreSQL behind a proxy the test stalls; B: on SQLite; one Redis namespace. */
  async function pair(extra: Env = {}): Promise<[ProxiedServer, TestServer]> {
    const env = sharedEnv({ STORE_READ_RETRIES: '0', ...extra });
    const a = await startProxiedServer(env);
    cleanups.push(() => a.stop());
    const b = await startTestServer('sqlite', { env });
    cleanups.push(() => b.stop());
    await untilRedis(a.server, 'ok');
    await untilRedis(b, 'ok');
    return [a, b];
  }

  it('notifications/cancelled sent to B aborts the call running on A (the audit says CANCELLED); nobody else can cancel it', async () => {
    const [a, b] = await pair();
    const sessionId = await openSession(a.server.url);
    const intruder = await b.login('mara', 'password');
    a.proxy.stall();
    const running = post(a.server.url, sessionId, toolCall(7, 'getMovie', { id: '1' }));
    // The call reaches A's store, which holds it.
    await expect.poll(() => a.proxy.holding(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(auditOf(a, 'getMovie')).toEqual([]);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect((await post(b.url, sessionId, cancel, intruder)).status).toBe(404);
    expect((await post(b.url, sessionId, cancel)).status).toBe(202);
    await expect.poll(() => auditOf(a, 'getMovie').at(-1)?.outcome, { timeout: 5000 }).toBe('CANCELLED');
    const ended = await running;
    expect(messagesIn(ended.body).filter((m) => m.id === 7)).toEqual([]);
    a.proxy.resume();
  });

  it('a response stream cut on A is resumed by a real client with Last-Event-ID on B: the progress after the cut and the result arrive, and the call was never cancelled', async () => {
    const [a, b] = await pair();
    const { client, transport, resumes } = routedClient(
      (_method, resuming) => (resuming ? b.url : a.server.url),
      {
        cutCalls: true,
      },
    );
    await client.connect(transport);
    a.proxy.stall();
    const progress: number[] = [];
    const pending = client.callTool(
      { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
    );
    await expect.poll(() => resumes.length, { timeout: 5000 }).toBe(1);
    expect(resumes).toEqual([b.url]);
    a.proxy.resume();
    const result = (await pending) as unknown as { isError?: boolean; structuredContent: { data: unknown } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.data).toMatchObject({ movieId: '1' });
    expect(progress.length).toBeGreaterThan(0);
    expect(auditOf(a, 'summarizeMovieReviews').map((line) => line.outcome)).toEqual(['OK']);
    await client.close();
  });

  it('a plain call (the lean path) whose stream is cut on A is resumed with Last-Event-ID on B and gets its result; a stream that ended normally leaves nothing in Redis to resume', async () => {
    const [a, b] = await pair();
    const sessionId = await openSession(a.server.url);
    const primingId = await cutPlainCallAndResume(a, b.url, sessionId);
    // The lean path stores no priming entry: its id is the position before any entry of a Redis Stream.
    expect(primingId).toMatch(/_0-1$/);
  });

  /** A replica in a child process (so it can be killed for real), on PostgreSQL through `proxy`. */
  async function childReplica(env: Env, proxy: TcpProxy): Promise<{ url: string; child: ChildProcess }> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-replica-'));
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const database = new URL(databaseUrl!);
    database.hostname = '127.0.0.1';
    database.port = String(proxy.port);
    const child = spawnCli([], {
      env: {
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        RATE_LIMITS: 'off',
        DATABASE_URL: database.toString(),
        DATABASE_SCHEMA: schema,
        ...env,
      },
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    });
    const listening = await waitForLine(child, /"msg":"listening"/);
    return { url: `http://127.0.0.1:${/"port":(\d+)/.exec(listening)![1]}`, child };
  }

  it('a call whose replica is killed (SIGKILL) mid-call: its stream resumed on B answers UNAVAILABLE once the lease lapses (never hangs), the session goes on through B, and a later resume is told the stream is complete', async () => {
    const env = sharedEnv({ STORE_READ_RETRIES: '0' });
    const target = new URL(databaseUrl!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.close());
    const a = await childReplica(env, proxy);
    const b = await startTestServer('sqlite', { env });
    cleanups.push(() => b.stop());
    await untilRedis(b, 'ok');
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${a.url}/readyz`)).json()) as { checks: { redis?: string } }).checks.redis,
      )
      .toBe('ok');
    const sessionId = await openSession(a.url);

    proxy.stall();
    const stream = await openSse(`${a.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
      body: JSON.stringify(toolCall(9, 'getMovie', { id: '3' })),
    });
    expect(stream.status).toBe(200);
    const lastEventId = await stream.firstEventId;
    const exited = new Promise((resolve) => a.child.once('exit', resolve));
    a.child.kill('SIGKILL');
    await exited;
    stream.cut();

    const resumed = await raw(`${b.url}/mcp`, { headers: streamHeaders(sessionId, lastEventId) });
    expect(resumed.status).toBe(200);
    expect(messagesIn(resumed.body)).toEqual([
      {
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32000,
          message: expect.stringMatching(/stopped before answering.*may or may not have been applied/s),
          data: { classification: 'UNAVAILABLE', retryable: true },
        },
      },
    ]);
    const answeredId = parseSse(resumed.body).at(-1)!.id!;
    const again = await raw(`${b.url}/mcp`, { headers: streamHeaders(sessionId, answeredId) });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/complete/) },
    });
    expect((await post(b.url, sessionId, LIST)).status).toBe(200);
  });
});

describe.skipIf(!databaseUrl)(
  'resuming a cut stream without Redis (in-process event store, postgres)',
  () => {
    let env: ProxiedServer;
    afterEach(() => env?.stop());

    it('a plain call (the lean path) whose stream is cut mid-call resumes with Last-Event-ID on the same server and gets its result; a stream that ended normally is forgotten', async () => {
      env = await startProxiedServer({ STORE_READ_RETRIES: '0' });
      await cutPlainCallAndResume(env, env.server.url, await openSession(env.server.url));
    });

    it('a real client whose tools/call stream is cut reconnects with Last-Event-ID to the same server and receives the rest and the result', async () => {
      env = await startProxiedServer({ STORE_READ_RETRIES: '0' });
      const { client, transport, resumes } = routedClient(() => env.server.url, { cutCalls: true });
      await client.connect(transport);
      env.proxy.stall();
      const progress: number[] = [];
      const pending = client.callTool(
        { name: 'summarizeMovieReviews', arguments: { movieId: '2' } },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
      );
      await expect.poll(() => resumes.length, { timeout: 5000 }).toBe(1);
      env.proxy.resume();
      const result = (await pending) as unknown as {
        isError?: boolean;
        structuredContent: { data: unknown };
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data).toMatchObject({ movieId: '2' });
      expect(progress.length).toBeGreaterThan(0);
      expect(auditOf(env, 'summarizeMovieReviews').map((line) => line.outcome)).toEqual(['OK']);
      await client.close();
    });
  },
);
