/**
 * The rate-limit step of the one pipeline: every executed operation, from /graphql or a tool call, is
 * counted once against its principal before it runs. A refusal is a result without data carrying one
 * RATE_LIMITED error, which /graphql answers as HTTP 429 and MCP as a tool error. Refusals are not
 * logged here: the access log (status 429) and the tool audit line (outcome RATE_LIMITED) record each.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { rateLimited } from '../limits/rate-limited.js';
import type { CallContext } from './context.js';

export async function admitOperation(context: CallContext): Promise<ExecutionResult | undefined> {
  let decision: Awaited<ReturnType<CallContext['limits']['admitOperation']>>;
  try {
    decision = await context.limits.admitOperation(context);
  } catch (error) {
    // A shared counter store that is down must not take the API down with it: admit, and say so.
    context.logger.error({ err: error }, 'rate limit store failed; operation admitted');
    return undefined;
  }
  if (decision.allowed) return undefined;
  const who = context.viewer ? 'this user' : 'this address';
  const window = decision.windowSeconds === 60 ? 'a minute' : `per ${decision.windowSeconds} s`;
  const error = rateLimited(
    `Too many requests: ${who} may run ${decision.limit} operations ${window}`,
    decision.retryAfterMs,
  );
  return {
    errors: [
      new GraphQLError(error.message, {
        extensions: { ...error.extensions, classification: error.classification },
      }),
    ],
  };
}
