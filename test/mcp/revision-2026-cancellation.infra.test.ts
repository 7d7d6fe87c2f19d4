/**
 * MCP revision 2026-07-28 on /mcp beside the 2025 revisions (docs/mcp.md, Protocol revisions): a real v2 client pinned to
 * 2026-07-28 (no handshake, no session) lists and calls the tools, gets progress over SSE, cancels by
 * closing its request; the required headers are checked; a 2025 session is served on the same endpoint
 * at the same time. 2025-era behaviour keeps its own tests, through the v1 client.
 */
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { type Envelope } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

type ToolResult<T = unknown> = { isError?: boolean; structuredContent: Envelope<T>; resultType?: string };

const auditLines = (logs: ReturnType<typeof captureLogs>, tool: string) =>
  logs.lines().filter((l) => l.audit === 'tool_call' && l.tool === tool);

const databaseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!databaseUrl)('MCP 2026-07-28 cancellation with the store stalled (postgres)', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  let client: ModernClient;
  const logs = captureLogs();
  beforeAll(async () => {
    const target = new URL(databaseUrl!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(databaseUrl!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    server = await startTestServer('postgres', {
      logger: logs.logger,
      env: { DATABASE_URL: viaProxy.toString(), MCP_TOOL_TIMEOUT_MS: '20000', STORE_READ_RETRIES: '0' },
    });
    // Anonymous: a bearer token would be checked against the stalled store before the call starts.
    client = await connectModernClient(server.url);
  });
  afterEach(() => proxy.resume());
  afterAll(async () => {
    await client.close();
    proxy.resume();
    await server.stop();
    await proxy.close();
  });

  it('aborting the request closes it and the running call is abandoned (CANCELLED), long before its deadline', async () => {
    proxy.stall();
    const controller = new AbortController();
    const progress: string[] = [];
    const pending = client.callTool(
      { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
      { signal: controller.signal, onprogress: (p) => progress.push(p.message ?? '') },
    );
    // The call reaches the store, which holds it.
    await expect.poll(() => proxy.holding(), { timeout: 10_000 }).toBeGreaterThan(0);
    const aborted = Date.now();
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    await expect
      .poll(() => auditLines(logs, 'summarizeMovieReviews').at(-1)?.outcome, { timeout: 5000 })
      .toBe('CANCELLED');
    // Explicit bound from the issue: abandoned well within the 20 s deadline.
    expect(Date.now() - aborted).toBeLessThan(10_000);
    // It never got past loading the movie, so reported nothing.
    expect(progress).toEqual([]);
    proxy.resume();
    // The server goes on answering.
    const after = (await client.callTool({
      name: 'getMovie',
      arguments: { id: '1' },
    })) as unknown as ToolResult;
    expect(after.isError).toBe(false);
  });
});
