/**
 * Every refusal of the built-in authorization server is OAuth's error shape (RFC 6749, section 5.2:
 * `{error, error_description}`), in words a person or a client can act on. Two things would break it:
 * the body parsers' errors (a malformed or oversized body, a charset other than UTF-8), which would
 * reach the app's last handler and get the API's error shape; and the SDK's handlers, which put zod's
 * `error.message`, a JSON dump of every issue, in `error_description`. `oauthBodyErrors` answers the
 * first; `readableOAuthErrors` rewrites the second, in JSON answers and in the authorize redirect
 * (the SDK's handlers are not ours to change, so their answer is mended on its way out).
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { BODY_ERRORS } from '../http/error-handlers.js';

interface Issue {
  path?: unknown[];
  message: string;
}

function issuesIn(description: string): Issue[] | undefined {
  const text = description.replace(/^ZodError:\s*/, '');
  if (!text.startsWith('[')) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
    const issues = parsed as Partial<Issue>[];
    return issues.every((issue) => typeof issue?.message === 'string') ? (issues as Issue[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line for a validator's dump, naming the parameter (`Missing parameter "client_id"`, `Invalid
 * parameter "redirect_uris": expected array, received number`); any other description as it was.
 */
function readableDescription(description: string): string {
  const issue = issuesIn(description)?.[0];
  if (!issue) return description;
  const name = (issue.path ?? []).map(String).join('.');
  const problem = issue.message.replace(/^Invalid input: /, '');
  if (/received undefined$/.test(problem))
    return name ? `Missing parameter "${name}"` : 'Missing the request parameters (send them form-encoded)';
  return name ? `Invalid parameter "${name}": ${problem}` : `Invalid request: ${problem}`;
}

const isOAuthError = (body: unknown): body is { error: string; error_description: string } =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { error?: unknown }).error === 'string' &&
  typeof (body as { error_description?: unknown }).error_description === 'string';

/** The authorize handler's error redirect with its description made readable; any other URL as it was. */
function readableRedirect(url: string): string {
  if (!url.includes('error_description=')) return url;
  const target = new URL(url);
  const description = target.searchParams.get('error_description');
  if (description === null) return url;
  const readable = readableDescription(description);
  if (readable === description) return url;
  target.searchParams.set('error_description', readable);
  return target.href;
}

export const readableOAuthErrors: RequestHandler = (_req, res, next) => {
  const json = res.json.bind(res);
  res.json = (body: unknown) =>
    json(
      isOAuthError(body) ? { ...body, error_description: readableDescription(body.error_description) } : body,
    );
  const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
  res.redirect = ((first: number | string, second?: string) =>
    typeof first === 'number'
      ? redirect(first, readableRedirect(second ?? ''))
      : redirect(302, readableRedirect(first))) as Response['redirect'];
  next();
};

/** A body the parsers refused (or another client error they raised), answered as an OAuth error. */
export const oauthBodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const { type, status } = (typeof error === 'object' && error !== null ? error : {}) as {
    type?: unknown;
    status?: unknown;
  };
  const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
  const code = known?.status ?? status;
  if (typeof code !== 'number' || code < 400 || code >= 500) return next(error);
  res
    .status(code)
    .set('Cache-Control', 'no-store')
    .json({
      error: 'invalid_request',
      error_description: known?.message ?? 'The request could not be processed',
    });
};
