/**
 * Calls of a 2025-era session shared through Redis (docs/mcp.md, Sessions across replicas), through the
 * front door: a cancellation sent to one replica aborts a call running on the other; a response stream cut
 * on one is resumed with Last-Event-ID on the other, and a call whose replica died answers UNAVAILABLE
 * there instead of hanging. Calls are held slow by stalling a PostgreSQL proxy, so these need
 * TEST_DATABASE_URL as well as Redis.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { spawnCli, waitForLine } from '../helpers/cli.js';
import { cutPlainCallAndResume } from '../helpers/cut-plain-call-and-resume.js';
import { MCP_HEADERS, openSession } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import { raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { routedClient } from '../helpers/routed-client.js';
import { TEST_JWT_SECRET, startTestServer, type TestServer } from '../helpers/server.js';
import { auditOf, LIST, postToSession, streamHeaders, toolCall } from '../helpers/session-requests.js';
import { SHARED_RUN, sharedEnv, untilRedis } from '../helpers/shared-redis-env.js';
import { messagesIn, openSse, parseSse } from '../helpers/sse.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const available = await redisAvailable();
if (!available) console.warn(`shared-session calls skipped: no Redis answers at ${REDIS_URL}`);
afterAll(() => available && dropKeys(SHARED_RUN));

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
    const running = postToSession(a.server.url, sessionId, toolCall(7, 'getMovie', { id: '1' }));
    // The call reaches A's store, which holds it.
    await expect.poll(() => a.proxy.holding(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(auditOf(a, 'getMovie')).toEqual([]);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect((await postToSession(b.url, sessionId, cancel, intruder)).status).toBe(404);
    expect((await postToSession(b.url, sessionId, cancel)).status).toBe(202);
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
    expect((await postToSession(b.url, sessionId, LIST)).status).toBe(200);
  });
});
