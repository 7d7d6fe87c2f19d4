/**
 * JSON error bodies for failures outside GraphQL execution, in the GraphQL error shape so every client
 * parses one format (never Express's HTML pages).
 */
import type { Response } from 'express';
import type { Classification } from '../errors.js';

export function sendError(
  res: Response,
  status: number,
  classification: Classification,
  message: string,
  extensions: Record<string, unknown> = {},
): void {
  if (res.headersSent) return;
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ errors: [{ message, extensions: { ...extensions, classification } }] }));
}
