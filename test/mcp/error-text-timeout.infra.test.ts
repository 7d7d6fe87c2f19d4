/**
 * What a model reads when its framework shows it only the text block (docs/errors.md, What a model
 * reads): every error's text starts with its classification and whether to retry, names the argument at
 * fault where there is one and says what to do next; a partial answer's lines come before its JSON, and
 * the whole text stays within the response budget. Through a real MCP client, on every store.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';

const textOf = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text;

describe.skipIf(!databaseUrl)('TIMEOUT says whether to retry (PostgreSQL behind a stalled proxy)', () => {
  let env: ProxiedServer;
  let client: Client;
  beforeAll(async () => {
    env = await startProxiedServer({ MCP_TOOL_TIMEOUT_MS: '500' });
    client = await connectClient(env.server.url, await env.server.login('user', 'user123'));
  });
  afterAll(async () => {
    env.proxy.resume();
    await client.close();
    await env.stop();
  });

  it('a read past its deadline is retryable', async () => {
    env.proxy.stall();
    const result = await callTool(client, 'getMovie', { id: '1' });
    env.proxy.resume();
    expect(textOf(result)).toBe(
      'TIMEOUT (retryable): The operation did not finish within 0.5 s and was abandoned; it is safe to call it again.',
    );
  });
});
