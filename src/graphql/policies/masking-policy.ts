/**
 * Classifies every error of an executed operation (src/graphql/classify-error.ts): deliberate ones pass,
 * the unknown are masked behind a reference logged once, with the request's own logger.
 */
import { classifyError, type InternalErrorSink } from '../classify-error.js';
import type { ExecutionPolicy } from './execution-policy.js';

export const maskingPolicy: ExecutionPolicy = {
  name: 'masking',
  create: () => (next) => async (call) => {
    const executed = await next(call);
    const { result } = executed;
    if (!result.errors) return executed;
    const log: InternalErrorSink = (error, reference) =>
      call.context.logger.error({ err: error, reference }, 'error while resolving');
    // Without `data` the errors are variable coercion's (the request's fault); with it, execution's.
    const phase = 'data' in result ? 'execution' : 'request';
    return {
      ...executed,
      result: { ...result, errors: result.errors.map((e) => classifyError(e, log, phase)) },
    };
  },
};
