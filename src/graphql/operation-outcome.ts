import type { ExecutionResult } from 'graphql';

/** An executed operation's outcome class, as metrics and traces name it: OK, or its first error's classification. */
export function operationOutcome(result: ExecutionResult): string {
  const classification = result.errors?.[0]?.extensions?.classification;
  return typeof classification === 'string' ? classification : 'OK';
}
