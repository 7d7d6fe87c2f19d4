/** The RATE_LIMITED error: what was exceeded, and when to try again in whole seconds (at least 1). */
import { AppError } from '../errors.js';

export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

export function rateLimited(what: string, retryAfterMs: number): AppError {
  const seconds = retryAfterSeconds(retryAfterMs);
  return new AppError('RATE_LIMITED', `${what}; try again in ${seconds} s`, { retryAfterSeconds: seconds });
}
