/**
 * Failure behaviour against a real PostgreSQL behind a proxy we can stall or cut: deadlines, retries of
 * reads only, the circuit breaker, and cancellation in both transport modes.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import type { TestServer } from '../helpers/server.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';

const auditLines = (logs: ProxiedServer['logs'], tool: string) =>
  logs.lines().filter((l) => l.audit === 'tool_call' && l.tool === tool);

describe.skipIf(!databaseUrl).each(['sessions', 'stateless'])(
  'resilience with the store behind a proxy (%s mode)',
  (mode) => {
    let env: ProxiedServer;
    let proxy: TcpProxy;
    let server: TestServer;
    let logs: ProxiedServer['logs'];
    let client: Client;

    beforeAll(async () => {
      env = await startProxiedServer({
        MCP_MODE: mode,
        MCP_TOOL_TIMEOUT_MS: '1500',
        STORE_CIRCUIT_FAILURES: '4',
        STORE_CIRCUIT_PROBE_MS: '300',
      });
      ({ proxy, server, logs } = env);
      client = await connectClient(server.url, await server.login('user', 'user123'));
    });
    afterEach(() => {
      proxy.up();
      proxy.resume();
    });
    afterAll(async () => {
      await client.close();
      await env.stop();
    });

    it('a hanging store turns into a TIMEOUT tool error at the deadline, and the server keeps answering', async () => {
      proxy.stall();
      const started = Date.now();
      const result = await callTool(client, 'getMovie', { id: '1' });
      const elapsed = Date.now() - started;
      expect(result.isError).toBe(true);
      expect(result.structuredContent.errors[0]).toMatchObject({
        classification: 'TIMEOUT',
        retryable: true,
      });
      expect(result.structuredContent.errors[0]!.message).toMatch(
        /did not finish within 1\.5 s and was abandoned/,
      );
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      proxy.resume();
      // One slow call is a timeout, not an outage: the circuit stays closed and the next call goes through.
      expect(logs.lines().some((l) => l.circuit === 'open')).toBe(false);
      const after = await callTool(client, 'getMovie', { id: '1' });
      expect(after.isError).toBe(false);
    });

    it('an outage: reads are retried with backoff, writes are not, then the circuit fails calls fast with UNAVAILABLE and recovers', async () => {
      proxy.down();
      const read = await callTool(client, 'getMovie', { id: '2' });
      expect(read.structuredContent.errors[0]).toMatchObject({
        classification: 'UNAVAILABLE',
        retryable: true,
      });
      expect(auditLines(logs, 'getMovie').at(-1)).toMatchObject({ outcome: 'UNAVAILABLE', attempts: 3 });

      const write = await callTool(client, 'addToWatchlist', { subject: { movieId: '20' } });
      expect(write.structuredContent.errors[0]!.classification).toBe('UNAVAILABLE');
      expect(auditLines(logs, 'addToWatchlist').at(-1)).toMatchObject({ attempts: 1 });

      // Four failures in a row have opened the circuit: the next call does not touch the store.
      const fast = await callTool(client, 'recommendMoviesForMood', { mood: 'COMEDY' });
      expect(fast.structuredContent.errors[0]).toMatchObject({
        classification: 'UNAVAILABLE',
        extensions: { retryAfterSeconds: expect.any(Number) },
      });
      expect(fast.structuredContent.errors[0]!.message).toMatch(/calls are paused/);
      expect(auditLines(logs, 'recommendMoviesForMood').at(-1)).toMatchObject({ attempts: 0 });
      expect(logs.lines().some((l) => l.circuit === 'open')).toBe(true);

      proxy.up();
      await expect
        .poll(async () => (await fetch(`${server.url}/readyz`)).status, { timeout: 5000 })
        .toBe(200);
      const recovered = await callTool(client, 'recommendMoviesForMood', { mood: 'COMEDY' });
      expect(recovered.isError).toBe(false);
      expect(logs.lines().some((l) => l.circuit === 'closed')).toBe(true);
    });

    it('notifications/cancelled aborts the running call: no answer is sent and the audit says CANCELLED', async () => {
      proxy.stall();
      const controller = new AbortController();
      const pending = client.callTool(
        { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
        undefined,
        {
          signal: controller.signal,
        },
      );
      // The call reaches the store, which holds it.
      await expect.poll(() => proxy.holding(), { timeout: 10_000 }).toBeGreaterThan(0);
      controller.abort('changed my mind');
      await expect(pending).rejects.toThrow();
      await expect
        .poll(() => auditLines(logs, 'summarizeMovieReviews').at(-1)?.outcome, { timeout: 3000 })
        .toBe('CANCELLED');
      proxy.resume();
    });
  },
);
