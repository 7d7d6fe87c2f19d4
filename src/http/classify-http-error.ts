/**
 * graphql-http answers some refusals before execution with no body (405 for another method, 406, 415) or
 * with an error that never passed our formatter (405 for a mutation over GET). Every error body a client
 * gets carries extensions.classification (docs/contract.md, Errors), so those are rewritten here, status and
 * headers (Allow, Accept) kept.
 */
import type { ResponseInit } from 'graphql-http';

type Body = string | null | undefined;

const MESSAGES: Record<number, (method: string) => string> = {
  405: (method) => `Method ${method} is not allowed on /graphql: use GET for queries, POST for any operation`,
  406: () => 'Not Acceptable: accept application/graphql-response+json or application/json',
  415: () =>
    'Unsupported Media Type: send the operation as JSON with Content-Type application/json, or as a GET query string',
};

function hasUnclassifiedError(body: Body): boolean {
  if (!body) return false;
  try {
    const parsed = JSON.parse(body) as { errors?: { extensions?: { classification?: unknown } }[] };
    return Array.isArray(parsed.errors) && parsed.errors.some((e) => !e.extensions?.classification);
  } catch {
    return false;
  }
}

export function classifyHttpError(method: string, body: Body, init: ResponseInit): [Body, ResponseInit] {
  if (init.status < 400 || (body && !hasUnclassifiedError(body))) return [body, init];
  let errors: { message: string; extensions?: Record<string, unknown> }[];
  if (body) {
    errors = (JSON.parse(body) as { errors: typeof errors }).errors.map((e) => ({
      message:
        e.message === 'Cannot perform mutations over GET'
          ? `${e.message}: send mutations with POST`
          : e.message,
      extensions: { ...e.extensions, classification: e.extensions?.classification ?? 'BAD_REQUEST' },
    }));
  } else {
    const message = MESSAGES[init.status]?.(method) ?? init.statusText ?? 'The request was refused';
    errors = [{ message, extensions: { classification: 'BAD_REQUEST' } }];
  }
  const headers = {
    ...(init.headers as Record<string, string> | undefined),
    'content-type': 'application/json; charset=utf-8',
  };
  return [JSON.stringify({ errors }), { ...init, headers }];
}
