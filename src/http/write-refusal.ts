/**
 * Puts a transport refusal (transport-refusals.ts) on the wire in /graphql's shape: a GraphQL error body
 * with `extensions.classification` (and `retryAfterSeconds` where a retry is due). /mcp's refusals are
 * still written by send-json-rpc-error.ts. Nothing is written once an answer has begun.
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
