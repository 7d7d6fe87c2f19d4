/**
 * The last middleware: unknown routes and every error that reaches Express become JSON, classified, with
 * no stack (Express would otherwise send an HTML page with one outside production).
 */
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { localsOf } from './locals.js';
import { sendError } from './problem.js';

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`);
};

/** body-parser marks its errors with a `type`; those are the client's mistakes. */
const BODY_ERRORS: Record<string, { status: number; message: string }> = {
  'entity.too.large': { status: 413, message: 'The request body is too large' },
  'entity.parse.failed': { status: 400, message: 'The request body is not valid JSON' },
  'charset.unsupported': { status: 415, message: 'The request body charset is not supported; use UTF-8' },
  'encoding.unsupported': { status: 415, message: 'The request body encoding is not supported' },
  'request.aborted': { status: 400, message: 'The request was aborted' },
};

export const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
  if (known) return sendError(res, known.status, 'BAD_REQUEST', known.message);
  const reference = randomUUID();
  (localsOf(res).logger ?? console).error({ err: error, reference }, 'unhandled error');
  sendError(res, 500, 'INTERNAL_ERROR', `An unexpected error occurred. Reference: ${reference}`, {
    reference,
  });
};
