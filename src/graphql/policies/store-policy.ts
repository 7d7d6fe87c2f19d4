/**
 * Runs the operation under the store policy (src/graphql/execute-within-policy.ts): its deadline, the
 * caller's signal, retries for reads and the circuit. Each attempt is handed on with its own signal and
 * the call's write progress; the report says how many attempts ran and how far the writes got.
 */
import { executeWithinPolicy } from '../execute-within-policy.js';
import type { ExecutionPolicy } from './execution-policy.js';

export const storePolicy: ExecutionPolicy = {
  name: 'store-policy',
  create: () => (next) => async (call) => {
    const { result, attempts, commit } = await executeWithinPolicy(
      call.context,
      call.operation,
      async (attempt) => (await next({ ...call, attempt })).result,
    );
    return { result, report: { attempts, commit, replayed: false, answeredBy: 'execution' } };
  },
};
