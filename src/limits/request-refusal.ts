/**
 * The request limit's step: counts a request that executes nothing at its points and says whether it
 * is refused. A counter store that fails admits, as the operation limit does: the limits must not take
 * the API down with them.
 */
import type { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AbuseLimits, Caller } from './abuse-limits.js';
import { rateLimited } from './rate-limited.js';

export async function requestRefusal(
  limits: Pick<AbuseLimits, 'admitRequest'>,
  caller: Caller,
  points: number,
  logger: Pick<Logger, 'error'>,
): Promise<AppError | undefined> {
  let decision: Awaited<ReturnType<AbuseLimits['admitRequest']>>;
  try {
    decision = await limits.admitRequest(caller, points);
  } catch (error) {
    logger.error({ err: error }, 'rate limit store failed; request admitted');
    return undefined;
  }
  if (decision.allowed) return undefined;
  const who = caller.viewer ? 'this user' : 'this address';
  const window = decision.windowSeconds === 60 ? 'a minute' : `per ${decision.windowSeconds} s`;
  return rateLimited(
    `Too many requests: ${who} may spend ${decision.limit} request points ${window}`,
    decision.retryAfterMs,
  );
}
