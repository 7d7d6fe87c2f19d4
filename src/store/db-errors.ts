/** Recognises database errors by their driver codes, so callers never parse messages. */

function codeOf(error: unknown): string | undefined {
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
