/**
 * graphql-http answers some refusals before execution with no body (405 for another method, 406, 415) or
 * with an error that never passed our formatter (405 for a mutation over GET). Every error body a client
 * gets carries extensions.classification (docs/contract.md, Errors), so those are rewritten here, status and
 * headers (Allow, Accept) kept.
 */
import type { ResponseInit } from 'graphql-http';
import { refusalOf, type RefusalCode } from '../transport-refusals.js';

type Body = string | null | undefined;

/** graphql-http's bodiless refusals, by status, as the transport refusals name them. */
const BODILESS: Record<number, RefusalCode> = {
  405: 'graphql.method-not-allowed',
  406: 'graphql.not-acceptable',
  415: 'graphql.unsupported-media-type',
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
          ? refusalOf('graphql.mutation-over-get').message
          : e.message,
      extensions: { ...e.extensions, classification: e.extensions?.classification ?? 'BAD_REQUEST' },
    }));
  } else {
    const code = BODILESS[init.status];
    const message = code
      ? refusalOf(code, { method }).message
      : (init.statusText ?? 'The request was refused');
    errors = [{ message, extensions: { classification: 'BAD_REQUEST' } }];
  }
  const headers = {
    ...(init.headers as Record<string, string> | undefined),
    'content-type': 'application/json; charset=utf-8',
  };
  return [JSON.stringify({ errors }), { ...init, headers }];
}
