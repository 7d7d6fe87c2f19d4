/** A keyed write answers a repeat with the stored answer, or runs reserving its key (execute-idempotently.ts). */
import { executeIdempotently } from '../execute-idempotently.js';
import { isKeyedWrite, type ExecutionPolicy } from './execution-policy.js';

export const idempotencyPolicy: ExecutionPolicy = {
  name: 'idempotency',
  create: () => (next) => (call) => {
    if (!isKeyedWrite(call)) return next(call);
    const { args, context } = call;
    return executeIdempotently(
      context,
      {
        key: context.idempotencyKey!,
        document: args.document,
        operationName: args.operationName,
        variables: args.variableValues,
      },
      (keyed) => next({ ...call, context: keyed }),
    );
  },
};
