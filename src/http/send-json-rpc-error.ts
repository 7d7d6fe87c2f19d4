/**
 * JSON-RPC error bodies for /mcp answers given outside the SDK (transport checks, drain, scope
 * challenges): one shape, so every refusal a client reads on /mcp parses the same way.
 */
import type { Response } from 'express';

export interface JsonRpcErrorOptions {
  headers?: Record<string, string>;
  /** The error's `data` member (classification, retryAfterSeconds, requiredScopes…). */
  data?: Record<string, unknown>;
  /** The id of the request being answered, echoed; null when it could not be read (JSON-RPC 2.0 section 5). */
  id?: unknown;
}

export function sendJsonRpcError(
  res: Response,
  status: number,
  code: number,
  message: string,
  { headers = {}, data, id = null }: JsonRpcErrorOptions = {},
): void {
  if (res.headersSent) return;
  res
    .status(status)
    .set(headers)
    .json({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
}
