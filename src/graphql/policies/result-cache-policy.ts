/**
 * Serves a shareable read from the result cache (src/graphql/result-cache.ts) and keeps what execution
 * answers without errors, unless a write happened meanwhile (the cache's generation).
 */
import { answeredBy, type ExecutionPolicy } from './execution-policy.js';

const NAME = 'result-cache';

export const resultCachePolicy: ExecutionPolicy = {
  name: NAME,
  create:
    ({ cache }) =>
    (next) =>
      !cache
        ? next
        : async (call) => {
            const { args, context } = call;
            const key =
              call.operation === 'query'
                ? cache.keyOf(args.document, args.operationName, args.variableValues, context.viewer)
                : undefined;
            if (key === undefined) return next(call);
            // A shared result stands in for execution only when execution would run at all and tell
            // nothing more: not for a caller who cancelled or who asked for progress (the resolvers
            // report it), and not while the circuit is open (then every call answers UNAVAILABLE).
            if (
              !context.signal?.aborted &&
              !context.reportProgress &&
              context.store.policy.state() === 'closed'
            ) {
              const hit = cache.get(key);
              if (hit) return answeredBy(NAME, hit);
            }
            const generation = cache.generation();
            const executed = await next(call);
            if (!executed.result.errors) cache.set(key, executed.result, generation);
            return executed;
          },
};
