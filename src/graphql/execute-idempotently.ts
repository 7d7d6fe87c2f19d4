/**
 * Idempotent writes: a policy of the one pipeline (src/graphql/policies/idempotency-policy.ts), so
 * /graphql (the `Idempotency-Key` header) and every write tool (`idempotencyKey`) obey the same rule.
 * For a mutation a signed-in caller runs with a key:
 * - a key this caller used within 24 h for the same operation and variables answers that call's stored
 *   answer and writes nothing (a key whose first call is still running is waited for, within the
 *   caller's deadline);
 * - the same key with another operation or other variables is a BAD_REQUEST naming the key;
 * - otherwise the operation runs, its first write transaction reserving the key as its first statement
 *   (src/store/write-transaction.ts), so the key commits or rolls back with the write. Two concurrent
 *   repeats cannot both write: the second fails on the key before writing and waits for the first's
 *   answer. A write that rolled back leaves no key, so repeating it runs it again.
 * Keys are scoped to the caller, bounded (IDEMPOTENCY_KEY_PATTERN) and expire after 24 h: an expired key
 * is replaced on use, and expired keys are deleted at most every 10 minutes per process. Anonymous
 * callers and queries run as usual (a read repeats harmlessly; anonymous callers have no scope to keep
 * keys in).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GraphQLError, OperationTypeNode, print, type DocumentNode, type ExecutionResult } from 'graphql';
import { canonicalJson } from '../canonical-json.js';
import { AppError } from '../errors.js';
import type { KeyIdentity } from '../store/idempotency-keys.js';
import { StoreOutage } from '../store/store-policy.js';
import { isTransientStoreError } from '../store/db-errors.js';
import type { Reservation } from '../store/write-transaction.js';
import type { CallContext } from './context.js';
import { executeWithinPolicy, failure } from './execute-within-policy.js';
import { answeredBy, type Executed } from './policies/execution-policy.js';

/** Letters, digits and the few marks UUIDs, ULIDs and base64 use; nothing a log or header could misread. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:~+/=-]{1,128}$/;
const IDEMPOTENCY_KEY_RULE = '1 to 128 characters: letters, digits and . _ : ~ + / = -';
/** How long a key keeps its answer. */
const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A key still without an answer this long after its write committed lost it (the process stopped in
 * between): every deadline is at most 120 s, so a live first call has answered long before.
 */
const ANSWER_LOST_AFTER_MS = 5 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;

/** Raised by the reservation when another call holds the key: its write must not happen. */
class KeyHeld extends AppError {
  constructor() {
    super('UNAVAILABLE', 'Another call with this idempotency key is being answered', { retryable: true });
  }
}

/** What the executor needs to know about a keyed call. */
interface KeyedCall {
  key: string;
  document: DocumentNode;
  operationName?: string | null;
  variables?: Readonly<Record<string, unknown>> | null;
}

/** The refusal for a key outside IDEMPOTENCY_KEY_PATTERN, or undefined when it is well formed. */
export function checkIdempotencyKey(key: string): ExecutionResult | undefined {
  if (IDEMPOTENCY_KEY_PATTERN.test(key)) return undefined;
  return failure('BAD_REQUEST', `The idempotency key must be ${IDEMPOTENCY_KEY_RULE}`, {
    field: 'idempotencyKey',
  });
}

const printedDocuments = new WeakMap<DocumentNode, string>();

/** What a repeat must match: the operation as printed (layout and comments aside) and its variables. */
function fingerprintOf(call: KeyedCall): string {
  let printed = printedDocuments.get(call.document);
  if (printed === undefined) {
    printed = print(call.document);
    printedDocuments.set(call.document, printed);
  }
  return createHash('sha256')
    .update(canonicalJson([printed, call.operationName ?? null, call.variables ?? {}]))
    .digest('hex');
}

/** A stored answer as the executor returns one: errors become GraphQLErrors again, locations kept. */
function revive(stored: string): ExecutionResult {
  const { data, errors } = JSON.parse(stored) as {
    data?: ExecutionResult['data'];
    errors?: Array<{
      message: string;
      path?: Array<string | number>;
      locations?: unknown;
      extensions?: Record<string, unknown>;
    }>;
  };
  const revived = errors?.map((error) => {
    const graphqlError = new GraphQLError(error.message, { path: error.path, extensions: error.extensions });
    if (error.locations) Object.assign(graphqlError, { locations: error.locations });
    return graphqlError;
  });
  return { ...(data !== undefined ? { data } : {}), ...(revived ? { errors: revived } : {}) };
}

/** Returned by the lookup when the key has no (live) record: the call runs. */
const NO_ANSWER: ExecutionResult = Object.freeze({});

/** The policy that answers a keyed write's repeat: the name its answers carry in the execution report. */
const ANSWERED_BY = 'idempotency';

export async function executeIdempotently(
  context: CallContext,
  call: KeyedCall,
  execute: (context: CallContext) => Promise<Executed>,
): Promise<Executed> {
  const keys = context.store.idempotencyKeys;
  const id: KeyIdentity = { subject: context.viewer!.subject, key: call.key };
  const fingerprint = fingerprintOf(call);
  const deadline = Date.now() + (context.timeoutMs ?? context.store.policy.defaultTimeoutMs);
  let replayed = false;

  /**
   * The stored answer for this key, waiting while its first call runs; NO_ANSWER when there is none. A
   * lookup under the store policy (deadline, circuit, read retries), not counted as an execution attempt.
   */
  const storedAnswer = async () => {
    const looked = await executeWithinPolicy(
      { ...context, timeoutMs: Math.max(1, deadline - Date.now()) },
      OperationTypeNode.QUERY,
      async ({ signal }) => {
        for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
          const row = await keys.find(id).catch((error: unknown) => {
            if (isTransientStoreError(error))
              throw new StoreOutage(
                failure('UNAVAILABLE', 'The movie database is unavailable right now; try again shortly', {
                  retryAfterSeconds: 1,
                }),
              );
            throw error;
          });
          if (!row || row.expires_at <= new Date().toISOString()) return NO_ANSWER;
          if (row.fingerprint !== fingerprint) {
            return failure(
              'BAD_REQUEST',
              `Idempotency key "${call.key}" was already used for another call (other arguments or another operation) in the last 24 h: use a new key for a new call`,
              { field: 'idempotencyKey' },
            );
          }
          if (row.result !== null) {
            replayed = true;
            return revive(row.result);
          }
          if (Date.parse(row.created_at) < Date.now() - ANSWER_LOST_AFTER_MS) {
            return failure(
              'UNAVAILABLE',
              `The call first made with idempotency key "${call.key}" was applied, but its answer was not recorded: check the current state before acting again`,
              { retryable: false, writeOutcome: 'applied' },
            );
          }
          await sleep(delay, undefined, { signal });
        }
      },
    );
    return looked.result;
  };

  const earlier = await storedAnswer();
  if (earlier !== NO_ANSWER) return answeredBy(ANSWERED_BY, earlier, replayed);

  let held = false;
  const reservation: Reservation = {
    phase: 'none',
    async reserve(trx) {
      if (await keys.reserve(trx, { ...id, fingerprint }, new Date(), IDEMPOTENCY_KEY_TTL_MS)) return;
      held = true;
      throw new KeyHeld();
    },
  };
  const executed = await execute({ ...context, reservation });
  if (held) {
    // A repeat committed first: its answer is the answer (this call wrote nothing).
    const answer = await storedAnswer();
    const report = { ...executed.report, answeredBy: ANSWERED_BY, replayed };
    if (answer !== NO_ANSWER) return { result: answer, report };
    return {
      result: failure(
        'UNAVAILABLE',
        'Another call with this idempotency key was being answered, and its answer is gone: call again',
        { retryable: true },
      ),
      report,
    };
  }
  if (reservation.phase !== 'none') {
    // The key committed (or may have) with the write: keep the answer for repeats, deadline or not.
    try {
      await keys.complete(id, JSON.stringify(executed.result));
    } catch (error) {
      context.logger.warn({ err: error }, 'the answer of an idempotent write could not be stored');
    }
    keys
      .purgeExpired(new Date(), PURGE_EVERY_MS)
      .catch((error: unknown) => context.logger.warn({ err: error }, 'expired idempotency keys not purged'));
  }
  return executed;
}
