/** A real MCP SDK client over Streamable HTTP, connected to a test server. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function connectClient(baseUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'moviedb-mcp-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

export interface ToolErrorShape {
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
