/**
 * The shape of the executor's policies (envelop's plugin shape; docs/architecture.md, The execution pipeline): each policy is a step
 * `(next) => execute` that answers a call itself (a refusal, a shared or stored answer) or hands it on,
 * and every step returns its answer with a typed report of what happened beside it, so no step talks to
 * another through a mutable record. The list and its order: src/graphql/policies/execution-policies.ts.
 */
import type { ExecutionArgs, ExecutionResult, OperationTypeNode } from 'graphql';
import type { CommitPhase } from '../../store/write-transaction.js';
import type { CallContext } from '../context.js';
import type { PolicyAttempt } from '../execute-within-policy.js';
import type { OperationAccess } from '../operation-access.js';
import type { ResultCache } from '../result-cache.js';

/** One call as the steps see it; a step hands on a changed copy, never changes it. */
export interface OperationCall {
  readonly args: ExecutionArgs;
  readonly context: CallContext;
  /** The operation's type; undefined when the document does not name one to run. */
  readonly operation: OperationTypeNode | undefined;
  /** Set by the store policy for each attempt it makes: what execution runs with. */
  readonly attempt?: PolicyAttempt;
}

interface ExecutionReport {
  /** Execution attempts made (reads may be retried); 0 when a policy answered, or the circuit refused. */
  attempts: number;
  /** How far the call's writes got (src/store/write-transaction.ts). */
  commit: CommitPhase;
  /** The answer is the stored one of an earlier call with the same idempotency key. */
  replayed: boolean;
  /** The policy that answered instead of execution, or 'execution' when the operation ran. */
  answeredBy: string;
}

export interface Executed {
  result: ExecutionResult;
  report: ExecutionReport;
}

export type Execute = (call: OperationCall) => Promise<Executed>;

/** What policies are built with: one executor's result cache and the schema's access rules. */
export interface PolicyDependencies {
  cache?: ResultCache;
  access: OperationAccess;
}

export interface ExecutionPolicy {
  /** How the list, the report's `answeredBy` and the order test name it. */
  readonly name: string;
  create(deps: PolicyDependencies): (next: Execute) => Execute;
}

/** The answer of a policy that stood in for execution: nothing ran, nothing was written. */
export function answeredBy(name: string, result: ExecutionResult, replayed = false): Executed {
  return { result, report: { attempts: 0, commit: 'none', replayed, answeredBy: name } };
}

/** The steps, first policy outermost, around `execute` (the operation itself). */
export function composePolicies(
  policies: readonly ExecutionPolicy[],
  deps: PolicyDependencies,
  execute: Execute,
): Execute {
  return policies.reduceRight<Execute>((next, policy) => policy.create(deps)(next), execute);
}

/**
 * A write whose idempotency key is kept: a mutation with a key from a signed-in caller (anonymous
 * callers have no scope to keep keys in, and a read repeats harmlessly).
 */
export function isKeyedWrite(call: OperationCall): boolean {
  return call.operation === 'mutation' && call.context.idempotencyKey !== undefined && !!call.context.viewer;
}
