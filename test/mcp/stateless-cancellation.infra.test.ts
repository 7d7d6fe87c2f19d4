/**
 * Cancellation in stateless mode (docs/mcp.md, Progress, cancellation and the audit line): a notifications/cancelled arrives on a request of its
 * own, so it is matched to the running call by (principal, request id). Request ids are counters every
 * client repeats; anonymous callers are told apart by their client address, signed-in ones by subject.
 * A real PostgreSQL behind a stalled proxy keeps the calls running long enough to be cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import type { TestServer } from '../helpers/server.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';

describe.skipIf(!databaseUrl)('stateless cancellation (postgres)', () => {
  let env: ProxiedServer;
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    env = await startProxiedServer({ MCP_MODE: 'stateless', STORE_READ_RETRIES: '0' });
    ({ proxy, server } = env);
  });
  afterAll(() => env.stop());

  const post = (body: unknown, from: string, token?: string) =>
    raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2025-11-25',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
      localAddress: from,
    });
  const getMovie = (id: number, from: string) =>
    post(
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'getMovie', arguments: { id: '1' } } },
      from,
    );
  const cancel = (requestId: number, from: string, token?: string) =>
    post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }, from, token);

  it('another anonymous address or a signed-in user cannot cancel a call; its own address can', async () => {
    const { token } = await server.newUser();
    proxy.stall();
    const mine = getMovie(7, '127.0.0.2');
    const alsoMine = getMovie(8, '127.0.0.2');
    // Both calls reach the store (each on its own connection), which holds them: cancels now find them.
    await expect.poll(() => proxy.holding(), { timeout: 10_000 }).toBe(2);
    expect((await cancel(7, '127.0.0.3')).status).toBe(202);
    expect((await cancel(7, '127.0.0.2', token)).status).toBe(202);
    expect((await cancel(8, '127.0.0.2')).status).toBe(202);
    // The cancelled call answers while the store still holds both.
    const cancelled = await alsoMine;
    proxy.resume();

    const answered = JSON.parse((await mine).body) as {
      id: number;
      result: { isError: boolean; structuredContent: unknown };
    };
    expect(answered).toMatchObject({
      id: 7,
      result: { isError: false, structuredContent: { data: { title: 'The Shawshank Redemption' } } },
    });
    expect(cancelled.body).toMatch(/cancelled by the client/);
  });
});
