/**
 * Every executed mutation clears the result cache, whatever its outcome: a deadline can fall after its
 * commit. A replayed one executed nothing, so it sits outside the replay step and clears nothing.
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
              cache.invalidate();
            }
          },
};
