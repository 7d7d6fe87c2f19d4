/**
 * Puts a transport refusal (transport-refusals.ts) on the wire in its endpoint's shape: a GraphQL error
 * body with `extensions.classification` on /graphql, a JSON-RPC error with `data.classification` on
 * /mcp. Nothing is written once an answer has begun.
 */
import type { ServerResponse } from 'node:http';
import type { Refusal } from '../transport-refusals.js';
import { sendError } from './problem.js';

function setHeaders(res: ServerResponse, refusal: Refusal): void {
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
}

export function writeGraphQLRefusal(res: ServerResponse, refusal: Refusal): void {
  if (res.headersSent) return;
  setHeaders(res, refusal);
  const { retryAfterSeconds } = refusal;
  sendError(
    res,
    refusal.status,
    refusal.classification,
    refusal.message,
    retryAfterSeconds === undefined ? {} : { retryAfterSeconds },
  );
}

/** `id`: the request being answered, when it could be read (JSON-RPC 2.0 section 5); else null. */
export function writeJsonRpcRefusal(
  res: ServerResponse,
  refusal: Refusal,
  { id = null, data = {} }: { id?: unknown; data?: Record<string, unknown> } = {},
): void {
  if (res.headersSent) return;
  setHeaders(res, refusal);
  const { retryAfterSeconds, classification } = refusal;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: refusal.jsonRpcCode ?? -32000,
      message: refusal.message,
      data: { classification, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }), ...data },
    },
  });
  res.statusCode = refusal.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
