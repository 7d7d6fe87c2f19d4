/**
 * The classified error formatter (SPEC section 3). Deliberate errors (AppError, GraphQL's own request
 * errors) pass with their message; anything else is masked behind a reference that is logged in full.
 */
import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { AppError, isAppError, type Classification } from '../errors.js';
import { isConstraintViolation, isTransientStoreError } from '../store/db-errors.js';

export type InternalErrorSink = (error: unknown, reference: string) => void;

function withClassification(
  error: GraphQLError,
  message: string,
  classification: Classification,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...extensions, classification },
  });
}

function fromAppError(error: GraphQLError, appError: AppError): GraphQLError {
  return withClassification(error, appError.message, appError.classification, appError.extensions);
}

export function classifyError(error: GraphQLError, onInternal: InternalErrorSink): GraphQLError {
  if (typeof error.extensions.classification === 'string') return error;
  const original = error.originalError;
  // No original error: GraphQL rejected the request itself (syntax, validation, variable coercion).
  if (!original) return withClassification(error, error.message, 'BAD_REQUEST');
  if (isAppError(original)) return fromAppError(error, original);
  if (original instanceof GraphQLError) {
    return isAppError(original.originalError)
      ? fromAppError(error, original.originalError)
      : withClassification(error, error.message, 'BAD_REQUEST');
  }
  if (isConstraintViolation(original)) {
    return withClassification(
      error,
      'The request conflicts with existing data or breaks a data rule',
      'BAD_REQUEST',
    );
  }
  const reference = randomUUID();
  onInternal(original, reference);
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
