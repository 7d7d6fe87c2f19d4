/**
 * Puts a transport refusal (transport-refusals.ts) on the wire in its endpoint's shape: on /graphql a
 * GraphQL error body with `extensions.classification` (and `retryAfterSeconds` where a retry is due), on
 * /mcp a JSON-RPC error (send-json-rpc-error.ts) whose `data` and `id` are the refusal's reply, when it
 * has one. Nothing is written once an answer has begun.
 */
import type { ServerResponse } from 'node:http';
import type { Refusal } from '../transport-refusals.js';
import { sendError } from './send-error.js';
import { sendJsonRpcError } from './send-json-rpc-error.js';

/** A /mcp refusal with what its JSON-RPC body carries beyond code and message. */
export type McpRefusal = Refusal & {
  /** The request's id, when the refusal answers a request whose id was read. */
  id?: string | number | null;
  data?: Record<string, unknown>;
};

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

export function writeMcpRefusal(res: ServerResponse, refusal: McpRefusal): void {
  sendJsonRpcError(res, refusal.status, refusal.jsonRpcCode ?? -32000, refusal.message, {
    headers: refusal.headers,
    ...(refusal.data ? { data: refusal.data } : {}),
    id: refusal.id ?? null,
  });
}

/** The refusal with the JSON-RPC reply parts its body carries. */
export const withReply = (
  refusal: Refusal,
  reply: { id?: string | number | null; data?: Record<string, unknown> },
): McpRefusal => ({ ...refusal, ...reply });

/** A refusal a client should retry later: its body's data says its classification and when. */
export const retryable = (refusal: Refusal): McpRefusal =>
  withReply(refusal, {
    data: { classification: refusal.classification, retryAfterSeconds: refusal.retryAfterSeconds },
  });
