/** Counts every operation that gets this far against its principal (src/graphql/admit-operation.ts). */
import { admitOperation } from '../admit-operation.js';
import { answeredBy, type ExecutionPolicy } from './execution-policy.js';

const NAME = 'rate-limit';

export const rateLimitPolicy: ExecutionPolicy = {
  name: NAME,
  create: () => (next) => async (call) => {
    const refused = await admitOperation(call.context);
    return refused ? answeredBy(NAME, refused) : next(call);
  },
};
