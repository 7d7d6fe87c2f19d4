/**
 * Parses and validates a /graphql document before graphql-http would, so that a document refused by
 * the parser or by validation is counted by the request limit at its points (request-weights.ts): such
 * a document executes nothing, so the operation limit never sees it, yet parsing and validating it is
 * most of what a small operation costs. Within the limit its errors are answered as before; over it the
 * answer is the operation limit's: HTTP 429 with Retry-After and one RATE_LIMITED error.
 */
import { GraphQLError, type DocumentNode } from 'graphql';
import type { Response as GraphQLHttpResponse } from 'graphql-http';
import type { Executor } from '../graphql/executor.js';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import { requestRefusal } from '../limits/request-refusal.js';
import { refusedDocumentPoints } from '../limits/request-weights.js';
import type { RequestLocals } from './locals.js';
import { rateLimitedResponse } from './rate-limited-response.js';

export type DocumentCheck =
  | { document: DocumentNode }
  /** The parser's or validation's errors, or the 429 once the caller's points are spent. */
  | { answer: readonly GraphQLError[] | GraphQLHttpResponse }
  /** Something other than a GraphQL error was thrown: graphql-http's own handling answers it. */
  | { unchecked: true };

export async function checkDocument(
  executor: Pick<Executor, 'parse' | 'validate' | 'schema'>,
  limits: Pick<AbuseLimits, 'admitRequest'>,
  source: string,
  caller: Pick<RequestLocals, 'viewer' | 'clientAddress' | 'logger'>,
  contentType: string,
): Promise<DocumentCheck> {
  let errors: readonly GraphQLError[];
  let document: DocumentNode | undefined;
  try {
    document = executor.parse(source);
    errors = executor.validate(executor.schema, document);
  } catch (error) {
    if (!(error instanceof GraphQLError)) return { unchecked: true };
    errors = [error];
  }
  if (errors.length === 0 && document) return { document };
  const refusal = await requestRefusal(
    limits,
    { viewer: caller.viewer ?? null, clientAddress: caller.clientAddress },
    refusedDocumentPoints(source.length),
    caller.logger,
  );
  if (!refusal) return { answer: errors };
  const error = new GraphQLError(refusal.message, {
    extensions: { ...refusal.extensions, classification: refusal.classification },
  });
  return { answer: rateLimitedResponse({ errors: [error] }, contentType)! };
}
