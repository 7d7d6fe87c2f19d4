/** A real MCP SDK client over Streamable HTTP, connected to a test server. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { raw } from './raw-http.js';

/**
 * `options`: headers sent with every request of the session (a `traceparent`, say) and the transport's
 * own options (a fetch of the test's, reconnection timing), beside the token.
 */
export async function connectClient(
  baseUrl: string,
  token?: string,
  {
    headers = {},
    ...options
  }: { headers?: Record<string, string> } & Pick<
    StreamableHTTPClientTransportOptions,
    'fetch' | 'reconnectionOptions'
  > = {},
): Promise<Client> {
  const client = new Client({ name: 'moviedb-mcp-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } },
    ...options,
  });
  await client.connect(transport);
  return client;
}

interface ToolErrorShape {
  message: string;
  path: (string | number)[] | null;
  classification: string;
  retryable: boolean;
  extensions?: Record<string, unknown>;
}

export interface Envelope<T = unknown> {
  data: T;
  errors: ToolErrorShape[];
}

/** Calls a tool and returns the result with its structuredContent typed as the `{data, errors}` envelope. */
export async function callTool<T = unknown>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent: Envelope<T> }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent: Envelope<T>;
  };
}

/**
 * A tool that asks before acting, as a client without elicitation meets it: the first call answers a
 * confirmationToken (a BAD_REQUEST tool error), the second, with it, acts. An answer without a token
 * (NOT_FOUND, UNAUTHORIZED…) is returned as it is.
 */
export async function callConfirmed<T = unknown>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent: Envelope<T> }> {
  const first = await callTool<T>(client, name, args);
  const token = first.structuredContent.errors[0]?.extensions?.confirmationToken;
  if (typeof token !== 'string') return first;
  return callTool<T>(client, name, { ...args, confirmationToken: token });
}

/** The arguments plus the confirmationToken the tool's first (asking) answer gives for them. */
export async function withConfirmation(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const asked = await callTool(client, name, args);
  const token = asked.structuredContent.errors[0]?.extensions?.confirmationToken;
  if (typeof token !== 'string')
    throw new Error(`${name} did not ask: ${JSON.stringify(asked.structuredContent)}`);
  return { ...args, confirmationToken: token };
}

/** The JSON-RPC headers a raw client must send to /mcp. */
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/**
 * Opens a session with a raw `initialize` (no client library), from `from` (a loopback address, so each
 * test can be its own client address), and returns its id; the answer must be a 200.
 */
export async function openSession(
  url: string,
  options: { token?: string; from?: string } = {},
): Promise<string> {
  const response = await raw(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: JSON.stringify(INITIALIZE),
    localAddress: options.from ?? '127.0.0.1',
  });
  expect(response.status).toBe(200);
  return response.headers['mcp-session-id'] as string;
}
