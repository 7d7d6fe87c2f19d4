/**
 * The closed list of error classifications (docs/contract.md, Errors) and the one error type that carries them.
 * Only an AppError's message reaches a client word for word; everything else is masked.
 */

export const CLASSIFICATIONS = [
  'NOT_FOUND',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'INTERNAL_ERROR',
  'TIMEOUT',
  'UNAVAILABLE',
  'RATE_LIMITED',
] as const;

export type Classification = (typeof CLASSIFICATIONS)[number];

/** Whether repeating the same request later may succeed: what an agent needs to decide on a retry. */
export const RETRYABLE: Record<Classification, boolean> = {
  NOT_FOUND: false,
  BAD_REQUEST: false,
  UNAUTHORIZED: false,
  FORBIDDEN: false,
  INTERNAL_ERROR: false,
  TIMEOUT: true,
  UNAVAILABLE: true,
  RATE_LIMITED: true,
};

export type ErrorExtensions = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly classification: Classification,
    message: string,
    readonly extensions: ErrorExtensions = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function notFound(entityType: string, id: string | number): AppError {
  return new AppError('NOT_FOUND', `Entity ${entityType} not found for id: ${id}`, { entityType });
}

export function badRequest(message: string, field?: string): AppError {
  return new AppError('BAD_REQUEST', message, field === undefined ? {} : { field });
}

/** What the caller asks to add is there already (`constraint: unique`): nothing was written, and nothing need be. */
export function alreadyThere(message: string, field: string): AppError {
  return new AppError('BAD_REQUEST', message, { field, constraint: 'unique' });
}

export function unauthorized(action: string): AppError {
  return new AppError('UNAUTHORIZED', `Sign in to use ${action}`);
}

export function forbidden(action: string): AppError {
  return new AppError('FORBIDDEN', `You are not allowed to use ${action}`);
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
