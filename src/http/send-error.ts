/**
 * JSON error bodies for failures outside GraphQL execution, in the GraphQL error shape so every client
 * parses one format (never Express's HTML pages). Written on node's response (the bytes Express's
 * `res.type('application/json').send(text)` wrote), so the one handlers answer with it too.
 */
import type { ServerResponse } from 'node:http';
import type { Classification } from '../errors.js';

export function sendError(
  res: ServerResponse,
  status: number,
  classification: Classification,
  message: string,
  extensions: Record<string, unknown> = {},
): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ errors: [{ message, extensions: { ...extensions, classification } }] });
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
