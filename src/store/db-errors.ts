/** Recognises database errors by their driver codes, so callers never parse messages. */

/** The driver's (or Node's) error code, when the error carries a string one. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A unique-index violation: the losing side of a race on a unique (user, title) pair. */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Any integrity constraint (unique, foreign key, check, not null): bad input, not a server fault. */
export function isConstraintViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('23') || code.startsWith('SQLITE_CONSTRAINT'));
}

/** PostgreSQL cancelled the statement (57014), here because it passed statement_timeout. */
export function isStatementTimeout(error: unknown): boolean {
  return codeOf(error) === '57014';
}

/** pg raises these without a code when a connection drops or the pool cannot get one in time. */
const TRANSIENT_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection refused|server closed the connection/i;
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  '53300', // too many connections
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now
]);

/**
 * A failure of the database's availability rather than of the request: worth a retry (reads) and
 * counted by the circuit breaker.
 */
export function isTransientStoreError(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && (TRANSIENT_CODES.has(code) || code.startsWith('08'))) return true;
  return error instanceof Error && TRANSIENT_MESSAGES.test(error.message);
}
