/**
 * A read the store policy retries is one run of its operation: GRAPHQL_JIT `repeated` compiles a
 * client's document on its second run, so a document sent once during an outage is not compiled on its
 * own retry, and the compiler decides about it once, on the client's second request.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';

const QUERY = 'query RetriedOnce { movie(id: "3") { title directors { name } } }';

describe.skipIf(!databaseUrl)('a client read retried by the store policy', () => {
  let env: ProxiedServer;
  let client: Client;

  beforeAll(async () => {
    env = await startProxiedServer(
      {
        GRAPHQL_JIT: 'repeated',
        MCP_SCHEMA_TOOLS: 'read',
        LOG_LEVEL: 'debug',
        // Every attempt must reach the store, and the outage must not open the circuit.
        RESULT_CACHE_MB: '0',
        STORE_CIRCUIT_FAILURES: '100',
      },
      'debug',
    );
    client = await connectClient(env.server.url, await env.server.login('user', 'user123'));
  });
  afterAll(async () => {
    await client?.close();
    await env?.stop();
  });

  const decisions = () =>
    env.logs.lines().filter((line) => line.msg === 'operation compiled' && line.operation === 'RetriedOnce');

  it('counts as one run: not compiled on its own retry, compiled once on its second request', async () => {
    env.proxy.down();
    const during = await callTool(client, 'executeGraphQL', { query: QUERY });
    env.proxy.up();
    expect(during.isError).toBe(true);
    expect(during.structuredContent.errors[0]).toMatchObject({ classification: 'UNAVAILABLE' });
    const audit = env.logs.lines().filter((l) => l.audit === 'tool_call' && l.tool === 'executeGraphQL');
    expect(audit.at(-1)).toMatchObject({ attempts: 3 });
    expect(decisions()).toEqual([]);

    await expect.poll(() => env.ready(), { timeout: 5000 }).toBe(true);
    const after = await callTool(client, 'executeGraphQL', { query: QUERY });
    expect(after.isError).toBe(false);
    expect(decisions()).toMatchObject([{ engine: 'graphql-jit', origin: 'client' }]);
  });
});
