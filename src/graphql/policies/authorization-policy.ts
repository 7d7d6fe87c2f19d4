/**
 * Roles and scopes before the replay step. @auth checks each field as it resolves, but a keyed write's
 * repeat is answered from the stored answer without resolving anything: a token of the same subject with
 * fewer scopes (or a demoted role) would get what the same call without a key refuses. So a keyed write
 * is checked whole, by the same rules, first: a caller that may not run every field of it is refused and
 * nothing runs (without a key, @auth still refuses field by field, which may leave partial data).
 */
import { answeredBy, isKeyedWrite, type ExecutionPolicy } from './execution-policy.js';

const NAME = 'authorization';

export const authorizationPolicy: ExecutionPolicy = {
  name: NAME,
  create:
    ({ access }) =>
    (next) =>
    (call) => {
      if (!isKeyedWrite(call)) return next(call);
      const refusal = access.refusalFor(call.args.document, call.args.operationName, call.context.viewer);
      return refusal ? Promise.resolve(answeredBy(NAME, { data: null, errors: [refusal] })) : next(call);
    },
};
