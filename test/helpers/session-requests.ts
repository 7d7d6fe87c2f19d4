/** Raw 2025-11-25 requests on a session, for tests that send them to one replica or another. */
import { MCP_HEADERS } from './mcp.js';
import type { ProxiedServer } from './proxied-server.js';
import { raw } from './raw-http.js';

export const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

export const toolCall = (
  id: number,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/** A POST to `url`'s /mcp, on the session given (none: an initialize or a refusal). */
export function postToSession(url: string, sessionId: string | undefined, body: unknown, token?: string) {
  return raw(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** The headers of a GET on the session's stream, resuming after `lastEventId` when given. */
export function streamHeaders(sessionId: string, lastEventId?: string): Record<string, string> {
  return {
    accept: 'text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  };
}

/** The audit lines of a tool on a proxied server. */
export const auditOf = (env: ProxiedServer, tool: string) =>
  env.logs.lines().filter((line) => line.audit === 'tool_call' && line.tool === tool);
