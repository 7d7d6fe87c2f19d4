import { describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startTestServer } from '../helpers/server.js';

describe('shutdown', () => {
  it('closes open MCP sessions and their SSE streams instead of waiting out the grace period', async () => {
    const server = await startTestServer('sqlite');
    const client = await connectClient(server.url, await server.login('user', 'user123'));
    expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBe(false);
    const started = Date.now();
    await server.stop();
    // The grace period is 10 s; open sessions must not hold the process that long.
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await client.close().catch(() => undefined);
  });
});
