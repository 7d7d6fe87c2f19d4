/**
 * The last middleware: unknown routes and every error that reaches Express become JSON, classified, with
 * no stack (Express would otherwise send an HTML page with one outside production).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { RequestLocals, ResponseWithLocals } from './locals.js';
import { sendError } from './send-error.js';

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`);
};

/**
 * At most this many form parameters: body-parser's default, which the SDK's /token, /register and
 * /revoke handlers keep; the sign-in forms name it too, so the refusal below holds for every form.
 */
export const FORM_PARAMETER_LIMIT = 1000;

/** body-parser (and readRequestBody) mark their errors with a `type`; those are the client's mistakes. */
export const BODY_ERRORS: Record<string, { status: number; message: string }> = {
  'entity.too.large': { status: 413, message: 'The request body is too large' },
  'entity.parse.failed': { status: 400, message: 'The request body is not valid JSON' },
  'charset.unsupported': { status: 415, message: 'The request body charset is not supported; use UTF-8' },
  'encoding.unsupported': {
    status: 415,
    message: 'The request Content-Encoding is not supported; send the body plain, or as gzip, deflate or br',
  },
  'encoding.mismatch': { status: 400, message: 'The request body does not match its Content-Encoding' },
  'request.aborted': { status: 400, message: 'The request was aborted' },
  'parameters.too.many': {
    status: 413,
    message: `The request has too many parameters (at most ${FORM_PARAMETER_LIMIT})`,
  },
};

/** Express's last error handler; the /graphql and /mcp handlers answer their errors through it too. */
export const errorHandler = (
  error: unknown,
  _req: IncomingMessage,
  res: ResponseWithLocals,
  _next?: unknown,
): void => {
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
  if (known) return sendError(res, known.status, 'BAD_REQUEST', known.message);
  // Other client errors raised by Express or its parsers (http-errors with a 4xx status) stay 4xx.
  const status =
    typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return sendError(res, status, 'BAD_REQUEST', 'The request could not be processed');
  }
  const reference = randomUUID();
  // No locals when the failure came before the request was begun.
  const logger = (res.locals as Partial<RequestLocals> | undefined)?.logger ?? console;
  logger.error({ err: error, reference }, 'unhandled error');
  sendError(res, 500, 'INTERNAL_ERROR', `An unexpected error occurred. Reference: ${reference}`, {
    reference,
  });
};
