/**
 * A real v2 SDK client pinned to protocol revision 2026-07-28 (no handshake, no session), and the raw
 * envelope a hand-written 2026 request carries. 2025-era tests keep the v1 client in `mcp.ts`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const MODERN = '2026-07-28';

export async function connectModernClient(
  baseUrl: string,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'moviedb-mcp-tests-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/** The per-request `_meta` envelope every 2026-07-28 request carries. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A raw 2026-07-28 request: body with the envelope and the headers the revision requires. */
export function modernRequest(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): { headers: Record<string, string>; body: string } {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object | undefined) } },
    }),
  };
}
