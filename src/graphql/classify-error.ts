/**
 * The classified error formatter (docs/contract.md, Errors). Deliberate errors (AppError, and GraphQL's own errors
 * about the request: syntax, validation, variable coercion) pass with their message; anything else is
 * masked behind a reference that is logged in full. During execution GraphQL's own errors are not about
 * the request but about our data or code (an enum value the schema cannot serialize, a null in a non-null
 * field), so there only our own errors pass.
 */
import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { AppError, isAppError, type Classification } from '../errors.js';
import { isConstraintViolation, isStatementTimeout, isTransientStoreError } from '../store/db-errors.js';

export type InternalErrorSink = (error: unknown, reference: string) => void;

/** Where an error was raised: before execution (about the request) or while resolving fields. */
export type ErrorPhase = 'request' | 'execution';

function withClassification(
  error: GraphQLError,
  message: string,
  classification: Classification,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  const classified = new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...extensions, classification },
  });
  // A compiled operation's errors (compile-operation.ts) carry their locations without AST nodes.
  if (!error.nodes && error.locations)
    (classified as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return classified;
}

function fromAppError(error: GraphQLError, appError: AppError): GraphQLError {
  return withClassification(error, appError.message, appError.classification, appError.extensions);
}

export function classifyError(
  error: GraphQLError,
  onInternal: InternalErrorSink,
  phase: ErrorPhase = 'request',
): GraphQLError {
  if (typeof error.extensions.classification === 'string') return error;
  const original = error.originalError;
  if (isAppError(original)) return fromAppError(error, original);
  if (original instanceof GraphQLError && isAppError(original.originalError)) {
    return fromAppError(error, original.originalError);
  }
  // GraphQL rejected the request itself (syntax, validation, variable coercion).
  if (phase === 'request' && (!original || original instanceof GraphQLError)) {
    return withClassification(error, error.message, 'BAD_REQUEST');
  }
  if (isStatementTimeout(original)) {
    // The database cancelled a statement that ran past its statement_timeout; its transaction rolled back.
    return withClassification(error, 'The database did not answer in time; try again shortly', 'TIMEOUT', {
      retryable: true,
    });
  }
  if (isConstraintViolation(original)) {
    return withClassification(
      error,
      'The request conflicts with existing data or breaks a data rule',
      'BAD_REQUEST',
    );
  }
  const reference = randomUUID();
  onInternal(original ?? error, reference);
  if (isTransientStoreError(original)) {
    return withClassification(
      error,
      'The movie database is unavailable right now; try again shortly',
      'UNAVAILABLE',
      {
        retryAfterSeconds: 1,
        reference,
      },
    );
  }
  return withClassification(
    error,
    `An unexpected error occurred. Reference: ${reference}`,
    'INTERNAL_ERROR',
    { reference },
  );
}

/**
 * For errors raised outside execution (bad HTTP parameters, unparseable documents). Plain Errors here
 * come from graphql-http's request parsing and describe the client's mistake.
 */
export function classifyRequestError(
  error: Readonly<GraphQLError | Error>,
  onInternal: InternalErrorSink,
): GraphQLError {
  if (error instanceof GraphQLError) return classifyError(error, onInternal);
  return new GraphQLError(error.message, { extensions: { classification: 'BAD_REQUEST' } });
}
