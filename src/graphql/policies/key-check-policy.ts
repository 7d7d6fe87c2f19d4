/**
 * Refuses an idempotency key that cannot be kept, like any malformed request: before it counts against a
 * quota. A key outside IDEMPOTENCY_KEY_PATTERN, wherever it is sent; and a keyed write that calls
 * register or login, because keeping the key means storing the answer for 24 h and replaying it, and
 * their answer holds a bearer token, which is never stored. Refusing (rather than storing the answer
 * without its token) keeps the other promise too: a repeat answers exactly what the first call answered.
 */
import { checkIdempotencyKey } from '../execute-idempotently.js';
import { failure } from '../execute-within-policy.js';
import { answeredBy, isKeyedWrite, type ExecutionPolicy } from './execution-policy.js';

const NAME = 'idempotency-key-check';

export const keyCheckPolicy: ExecutionPolicy = {
  name: NAME,
  create:
    ({ access }) =>
    (next) =>
    (call) => {
      const { idempotencyKey } = call.context;
      if (idempotencyKey === undefined) return next(call);
      const malformed = checkIdempotencyKey(idempotencyKey);
      if (malformed) return Promise.resolve(answeredBy(NAME, malformed));
      if (isKeyedWrite(call) && access.issuesTokens(call.args.document, call.args.operationName)) {
        return Promise.resolve(
          answeredBy(
            NAME,
            failure(
              'BAD_REQUEST',
              'An idempotency key cannot be used with register or login: their answer holds a bearer token, which is never stored. Send the call without the key',
              { field: 'idempotencyKey' },
            ),
          ),
        );
      }
      return next(call);
    },
};
