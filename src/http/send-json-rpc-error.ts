/**
 * JSON-RPC error bodies for /mcp answers given outside the SDK (transport checks, drain, scope
 * challenges, session refusals): one shape, so every refusal a client reads on /mcp parses the same way.
 * Plain node (no Express): the one /mcp handler and the session handlers answer through it.
 */
import type { ServerResponse } from 'node:http';

export interface JsonRpcErrorOptions {
  headers?: Record<string, string>;
  /** The error's `data` member (classification, retryAfterSeconds, requiredScopes…). */
  data?: Record<string, unknown>;
  /** The id of the request being answered, echoed; null when it could not be read (JSON-RPC 2.0 section 5). */
  id?: unknown;
}

export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  { headers = {}, data, id = null }: JsonRpcErrorOptions = {},
): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
