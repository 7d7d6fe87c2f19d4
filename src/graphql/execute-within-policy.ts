/**
 * Runs one operation under the store policy (src/store/store-policy.ts): its deadline, the caller's
 * signal, retries for queries only and the circuit, for /graphql and every tool alike. What the policy
 * refused or abandoned becomes a classified GraphQL error in a normal result (`data: null`).
 */
import { GraphQLError, type ExecutionResult, type OperationTypeNode } from 'graphql';
import type { PromiseOrValue } from 'graphql/jsutils/PromiseOrValue.js';
import type { Classification } from '../errors.js';
import { retryAfterSeconds } from '../limits/rate-limited.js';
import { isTransientStoreError } from '../store/db-errors.js';
import { CallCancelled, CircuitOpen, DeadlineExceeded, StoreOutage } from '../store/store-policy.js';
import type { CommitPhase } from '../store/write-transaction.js';
import type { CallContext, WriteProgress } from './context.js';

/** A result without data carrying one classified error: a refusal or an abandoned call. */
export function failure(
  classification: Classification,
  message: string,
  extensions: Record<string, unknown> = {},
): ExecutionResult {
  return {
    data: null,
    errors: [new GraphQLError(message, { extensions: { ...extensions, classification } })],
  };
}

/**
 * A deadline answer says what happened to the writes: nothing sent to commit means nothing was written
 * (the transaction helper rolled back), so repeating is safe; once a commit was sent it may have landed.
 */
function deadlineFailure(timeoutMs: number, mutation: boolean, commit: CommitPhase): ExecutionResult {
  const within = `The operation did not finish within ${timeoutMs / 1000} s and was abandoned`;
  if (!mutation)
    return failure('TIMEOUT', `${within}; it is safe to call it again`, { timeoutMs, retryable: true });
  if (commit === 'none') {
    return failure('TIMEOUT', `${within} before anything was written; it is safe to call it again`, {
      timeoutMs,
      retryable: true,
      writeOutcome: 'none',
    });
  }
  const applied = commit === 'committed' ? 'its change was applied' : 'its change may have been applied';
  return failure('TIMEOUT', `${within}, but ${applied}: check the current state before calling it again`, {
    timeoutMs,
    retryable: false,
    writeOutcome: commit === 'committed' ? 'applied' : 'unknown',
  });
}

const hasOutage = (result: ExecutionResult) =>
  (result.errors ?? []).some((error) => isTransientStoreError(error.originalError));

/** What one attempt runs with: the signal that also aborts at the deadline, and the call's write progress. */
export interface PolicyAttempt {
  signal: AbortSignal;
  progress: WriteProgress;
}

/** The answer under the policy, with what the policy saw: attempts made and how far the writes got. */
export interface PolicyOutcome {
  result: ExecutionResult;
  attempts: number;
  commit: CommitPhase;
}

export async function executeWithinPolicy(
  context: Pick<CallContext, 'store' | 'signal' | 'timeoutMs'>,
  operation: OperationTypeNode | undefined,
  executeOnce: (attempt: PolicyAttempt) => PromiseOrValue<ExecutionResult>,
): Promise<PolicyOutcome> {
  const policy = context.store.policy;
  const timeoutMs = context.timeoutMs ?? policy.defaultTimeoutMs;
  const progress: WriteProgress = { commit: 'none' };
  let attempts = 0;
  const outcome = (result: ExecutionResult): PolicyOutcome => ({ result, attempts, commit: progress.commit });
  try {
    const result = await policy.run(
      async (signal) => {
        // Resolvers see the signal that also aborts at the deadline: writes check it before committing,
        // and loaders stop sending batches once it has aborted.
        const result = await executeOnce({ signal, progress });
        if (hasOutage(result)) throw new StoreOutage(result);
        return result;
      },
      {
        timeoutMs,
        signal: context.signal,
        idempotent: operation === 'query',
        onAttempt: () => void (attempts += 1),
      },
    );
    return outcome(result);
  } catch (error) {
    if (error instanceof StoreOutage) return outcome(error.outcome as ExecutionResult);
    if (error instanceof CircuitOpen) {
      const seconds = retryAfterSeconds(error.retryAfterMs);
      return outcome(
        failure(
          'UNAVAILABLE',
          `The movie database is unavailable; calls are paused. Try again in ${seconds} s`,
          {
            retryAfterSeconds: seconds,
          },
        ),
      );
    }
    if (error instanceof DeadlineExceeded) {
      return outcome(deadlineFailure(timeoutMs, operation === 'mutation', progress.commit));
    }
    if (error instanceof CallCancelled) return outcome(failure('BAD_REQUEST', error.message));
    throw error;
  }
}
