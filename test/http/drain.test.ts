/**
 * Shutdown under load (docs/deployment.md, Behind a proxy). While 50 connections call tools (MCP sessions, SSE responses) and
 * /graphql, the server drains: readiness turns false, every request it had already received gets its full
 * answer, every new one (new sessions and requests on existing sessions included) a 503 with Retry-After
 * and a classified JSON body, then sessions close. "Already received" is made exact with held requests:
 * their headers were accepted (100 Continue) before the drain began, their bodies are sent during it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import {
  QUERY,
  call,
  expectFullAnswers,
  holdRequests,
  isDrainRefusal,
  rawSession,
  startLoad,
} from '../helpers/drain-load.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient } from '../helpers/mcp.js';
import { holdRequest, openStream, raw, type RawResponse } from '../helpers/raw-http.js';
import { TEST_JWT_SECRET, dialects, startTestServer } from '../helpers/server.js';

describe.each(dialects)('draining on close (%s)', (dialect) => {
  it('closes open MCP sessions and their SSE streams instead of waiting out the grace period', async () => {
    const server = await startTestServer(dialect);
    const client = await connectClient(server.url, await server.login('user', 'user123'));
    expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBe(false);
    const started = Date.now();
    await server.stop();
    // The grace period is 10 s; an idle session's listening stream must not hold the process that long.
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await client.close().catch(() => undefined);
  });

  it('with 50 connections calling tools and /graphql: no in-flight failure, 503 + Retry-After for new requests, sessions close last', async () => {
    const logs = captureLogs();
    const server = await startTestServer(dialect, {
      logger: logs.logger,
      env: { MCP_MAX_SESSIONS_PER_USER: '60', SHUTDOWN_GRACE_MS: '30000' },
    });
    try {
      const token = await server.login('user', 'user123');
      const clients = await Promise.all(Array.from({ length: 25 }, () => connectClient(server.url, token)));
      const session = await rawSession(server.url, token);
      const held = await holdRequests(server.url, session, 5);
      const load = startLoad(server.url, clients, 25);
      await expect.poll(() => load.ok, { timeout: 10_000 }).toBeGreaterThan(100);

      const closing = server.close();
      await load.stopped;
      expect(load.failures).toEqual([]);
      expect(load.refused).toBe(50);

      // During the drain: not ready, still alive, and every new request is refused, not 404.
      expect((await raw(`${server.url}/readyz`)).status).toBe(503);
      expect((await raw(`${server.url}/healthz`)).status).toBe(200);
      const refusals = [
        await raw(`${server.url}/mcp`, {
          method: 'POST',
          headers: MCP_HEADERS,
          body: JSON.stringify(INITIALIZE),
        }),
        await raw(`${server.url}/mcp`, { method: 'POST', headers: session, body: call(200) }),
        await raw(`${server.url}/graphql?query=%7B__typename%7D`),
        await raw(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: QUERY,
        }),
      ];
      for (const refusal of refusals) {
        expect(isDrainRefusal(refusal.status, refusal.headers['retry-after'] as string, refusal.body)).toBe(
          true,
        );
        expect(refusal.headers['content-type']).toMatch(/application\/json/);
      }

      // Requests received before the drain get their full answers.
      const [mcp, graphql] = await Promise.all([
        Promise.all(held.mcp.map((h) => h.finish())),
        Promise.all(held.graphql.map((h) => h.finish())),
      ]);
      expectFullAnswers(mcp, graphql);
      await closing;
      // The drain waited for the held requests and whatever the load had in flight, and cut none.
      const drained = logs.lines().find((line) => line.msg === 'draining: requests finished');
      expect(drained).toMatchObject({ settled: true, cut: 0 });
      expect(drained!.waitedFor).toBeGreaterThanOrEqual(10);
      console.info(
        `drain (${dialect}): ${load.ok} answered before, ${String(drained!.waitedFor)} in flight at close, ${load.refused} refused`,
      );
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('keeps serving during SHUTDOWN_DELAY_MS while /readyz already says draining', async () => {
    const server = await startTestServer(dialect, { env: { SHUTDOWN_DELAY_MS: '1500' } });
    const closing = server.close();
    const ready = await raw(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: 'draining' });
    const served = await raw(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: QUERY,
    });
    expect(served.status).toBe(200);
    const init = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(INITIALIZE),
    });
    expect(init.status).toBe(200);
    await closing;
    await server.stop();
  });

  it('/MCP and /mcp/ are no route: 404 while serving, never a stream the drain waits for, refused as any path', async () => {
    const logs = captureLogs();
    // A grace long enough that waiting it out shows; the drain must settle well before it.
    const graceMs = 4000;
    const server = await startTestServer(dialect, {
      logger: logs.logger,
      env: { SHUTDOWN_GRACE_MS: String(graceMs) },
    });
    try {
      const token = await server.login('user', 'user123');
      const variants = ['/MCP', '/mcp/', '/Mcp'];
      // Each on a session of its own: a session has one listening stream at most.
      const listening = await Promise.all(
        [...variants, '/mcp'].map(async (path) => {
          const headers = { ...(await rawSession(server.url, token)), accept: 'text/event-stream' };
          return { path, stream: await openStream(`${server.url}${path}`, { headers }) };
        }),
      );
      for (const { path, stream } of listening)
        expect(stream.status, `GET ${path}`).toBe(path === '/mcp' ? 200 : 404);
      const session = await rawSession(server.url, token);
      for (const path of variants) {
        const refused = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: session,
          body: call(1),
        });
        expect(refused.status, `POST ${path}`).toBe(404);
        expect(JSON.parse(refused.body), `POST ${path}`).toEqual({
          errors: [{ message: `No route for POST ${path}`, extensions: { classification: 'NOT_FOUND' } }],
        });
      }

      // Keeps the drain in its refusing phase until the checks below are done.
      const held = await holdRequest(`${server.url}/graphql`, {
        headers: { 'content-type': 'application/json' },
        body: QUERY,
      });
      const started = Date.now();
      const closing = server.close();
      await expect
        .poll(
          async () =>
            (await raw(`${server.url}/mcp`, { method: 'POST', headers: session, body: call(2) })).status,
        )
        .toBe(503);
      // /mcp is refused in its JSON-RPC shape; another spelling is no MCP route, so the generic one.
      const mcp = await raw(`${server.url}/mcp`, { method: 'POST', headers: session, body: call(3) });
      expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      for (const path of variants) {
        const refused = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: session,
          body: call(4),
        });
        expect(isDrainRefusal(refused.status, refused.headers['retry-after'] as string, refused.body)).toBe(
          true,
        );
        expect(JSON.parse(refused.body), `POST ${path} while draining`).toMatchObject({
          errors: [{ extensions: { classification: 'UNAVAILABLE' } }],
        });
      }
      expect((await held.finish()).status).toBe(200);
      await closing;
      // Only the held request was waited for: no listening stream of any spelling held the drain.
      expect(logs.lines().find((line) => line.msg === 'draining: requests finished')).toMatchObject({
        settled: true,
        cut: 0,
      });
      expect(Date.now() - started).toBeLessThan(graceMs);
      for (const { stream } of listening) stream.close();
    } finally {
      await server.stop();
    }
  });

  it('after the drain settled, answers a request on an idle keep-alive connection or a new one: a 503 (a probe: 200), not a reset', async () => {
    // A busy client sends its next request on its open connection before it can see a close, and a burst
    // of new connections is in the kernel's queue when the listener closes: cutting every socket the
    // moment the drain settled, or closing the listener then, reset those requests.
    const logs = captureLogs();
    const server = await startTestServer(dialect, {
      logger: logs.logger,
      closeAfterDrain: { quietMs: 2000, maxMs: 20_000 },
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const prober = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (options: { agent?: Agent } = {}) =>
      raw(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: QUERY,
        ...options,
      });
    const expectRefused = (refused: RawResponse) => {
      expect(isDrainRefusal(refused.status, refused.headers['retry-after'] as string, refused.body)).toBe(
        true,
      );
      expect(refused.headers.connection).toBe('close');
    };
    try {
      expect((await post({ agent })).status).toBe(200);
      expect((await raw(`${server.url}/healthz`, { agent: prober })).status).toBe(200);
      const closing = server.close();
      await expect
        .poll(() => logs.lines().some((line) => line.msg === 'draining: requests finished'), {
          timeout: 5000,
        })
        .toBe(true);
      expectRefused(await post({ agent }));
      expectRefused(await post());
      // A probe is answered, and closes its connection too: a keep-alive poller does not hold the close.
      const probe = await raw(`${server.url}/healthz`, { agent: prober });
      expect(probe.status).toBe(200);
      expect(probe.headers.connection).toBe('close');
      await closing;
    } finally {
      agent.destroy();
      prober.destroy();
      await server.stop();
    }
  });

  it('cuts an idle connection that sends nothing once the bound is over', async () => {
    const server = await startTestServer(dialect, { closeAfterDrain: { quietMs: 60_000, maxMs: 200 } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await raw(`${server.url}/healthz`, { agent })).status).toBe(200);
      const socketClosed = new Promise((resolve) =>
        Object.values(agent.freeSockets)[0]![0]!.once('close', resolve),
      );
      await server.close();
      await socketClosed;
    } finally {
      agent.destroy();
      await server.stop();
    }
  });

  it('cuts requests that outlive SHUTDOWN_GRACE_MS and still closes', async () => {
    const server = await startTestServer(dialect, { env: { SHUTDOWN_GRACE_MS: '300' } });
    const stuck = await holdRequest(`${server.url}/graphql`, {
      headers: { 'content-type': 'application/json' },
      body: QUERY,
    });
    await server.close();
    await expect(stuck.finish()).rejects.toThrow();
    await server.stop();
  });
});

const root = path.resolve(import.meta.dirname, '../..');

describe.each(dialects)('the built server on SIGTERM (%s)', (dialect) => {
  async function startBuilt(): Promise<{
    child: ChildProcess;
    url: string;
    exited: Promise<number | null>;
    cleanup(): Promise<void>;
  }> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-drain-'));
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        MCP_MAX_SESSIONS_PER_USER: '60',
        // The load is ours, from one address: abuse limits are proven in their own tests.
        RATE_LIMITS: 'off',
        ...(dialect === 'postgres'
          ? { DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_SCHEMA: schema }
          : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const port = /"port":(\d+).*"msg":"listening"/.exec(buffered)?.[1];
        if (port) resolve(`http://127.0.0.1:${port}`);
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
    });
    return {
      child,
      url,
      exited,
      async cleanup() {
        if (child.exitCode === null) child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
        if (dialect === 'postgres') {
          const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
          await client.connect();
          await client.query(`drop schema if exists "${schema}" cascade`);
          await client.end();
        }
      },
    };
  }

  it('node dist/main.js drains 50 busy connections and exits 0', async () => {
    // dist/ is current: the suite's global setup (test/helpers/build-dist.ts) rebuilt it if stale.
    const server = await startBuilt();
    try {
      const login = await raw(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation { login(input: {username: "user", password: "user123"}) { token } }',
        }),
      });
      const token = (JSON.parse(login.body) as { data: { login: { token: string } } }).data.login.token;
      const clients = await Promise.all(Array.from({ length: 25 }, () => connectClient(server.url, token)));
      const session = await rawSession(server.url, token);
      const held = await holdRequests(server.url, session, 3);
      const load = startLoad(server.url, clients, 25);
      await expect.poll(() => load.ok, { timeout: 10_000 }).toBeGreaterThan(100);

      process.kill(server.child.pid!, 'SIGTERM');
      await load.stopped;
      expect(load.failures).toEqual([]);
      expect(load.refused).toBe(50);
      const [mcp, graphql] = await Promise.all([
        Promise.all(held.mcp.map((h) => h.finish())),
        Promise.all(held.graphql.map((h) => h.finish())),
      ]);
      expectFullAnswers(mcp, graphql);
      expect(await server.exited).toBe(0);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    } finally {
      await server.cleanup();
    }
  }, 180_000);
});
