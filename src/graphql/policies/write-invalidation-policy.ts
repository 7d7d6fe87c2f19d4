/**
 * Every executed mutation tells the result cache, whatever its outcome (a deadline can fall after its
 * commit), which forgets what it may have changed: everything, or only the caller's own entries after a
 * write of only its own rows (src/graphql/result-cache.ts). A replayed one executed nothing, so it sits
 * outside the replay step and forgets nothing.
 */
import type { ExecutionPolicy } from './execution-policy.js';

export const writeInvalidationPolicy: ExecutionPolicy = {
  name: 'write-invalidation',
  create:
    ({ cache }) =>
    (next) =>
      !cache
        ? next
        : async (call) => {
            if (call.operation !== 'mutation') return next(call);
            try {
              return await next(call);
            } finally {
              cache.wrote(call.args.document, call.args.operationName, call.context.viewer);
            }
          },
};
