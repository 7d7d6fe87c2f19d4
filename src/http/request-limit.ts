/**
 * The request limit on /mcp: every POSTed JSON-RPC message (initialize, tools/list, resources, prompts,
 * ping, notifications, an unknown method, ...) is counted at its points (request-weights.ts) before a
 * server or transport is built for it, so a refusal costs a counter update, not the ~2.5 ms a served
 * message does. Over the limit it is refused as this endpoint's other quota refusals are: HTTP 429 with
 * Retry-After and a JSON-RPC error classified RATE_LIMITED carrying retryAfterSeconds. A tools/call is
 * counted where it is answered (mcp-server.ts), so its refusal keeps the documented tool-error shape.
 */
import type { ServerResponse } from 'node:http';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import { requestRefusal } from '../limits/request-refusal.js';
import { mcpMessagePoints } from '../limits/request-weights.js';
import { localsOf, type ResponseWithLocals } from './locals.js';

function isToolCall(message: unknown): boolean {
  return (message as { method?: unknown } | null)?.method === 'tools/call' && 'id' in (message as object);
}

/** The JSON-RPC id of a request being refused; null for anything else (JSON-RPC 2.0 section 5). */
function idOf(message: unknown): unknown {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function send429(res: ServerResponse, id: unknown, message: string, retryAfterSeconds: number): void {
  if (res.headersSent) return;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: -32000, message, data: { classification: 'RATE_LIMITED', retryAfterSeconds } },
  });
  res.statusCode = 429;
  res.setHeader('Retry-After', String(retryAfterSeconds));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Counts a parsed /mcp message against its caller (the identity and address on the response's locals);
 * answers the refusal and returns true when the caller's points are spent.
 */
export async function refuseOverRequestLimit(
  limits: Pick<AbuseLimits, 'admitRequest'>,
  message: unknown,
  res: ResponseWithLocals,
): Promise<boolean> {
  if (isToolCall(message)) return false;
  const locals = localsOf(res);
  const refusal = await requestRefusal(
    limits,
    { viewer: locals.viewer ?? null, clientAddress: locals.clientAddress },
    mcpMessagePoints(message),
    locals.logger,
  );
  if (!refusal) return false;
  send429(
    res,
    idOf(message),
    `Too Many Requests: ${refusal.message}`,
    refusal.extensions.retryAfterSeconds as number,
  );
  return true;
}
