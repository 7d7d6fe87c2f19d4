/** What every resolver receives: the verified caller, the store, per-attempt loaders and a logger. */
import { createHash } from 'node:crypto';
import { EXTERNAL_SUBJECT_PREFIX, type Identity } from '../auth/identity.js';
import { isUniqueViolation } from '../store/db-errors.js';
import type { TokenService } from '../auth/tokens.js';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { unauthorized } from '../errors.js';
import type { User } from '../store/tables.js';
import { writeTransaction, type CommitPhase, type Reservation } from '../store/write-transaction.js';
import type { Loaders } from './loaders.js';

export interface GraphQLContext {
  /** The verified caller; null when anonymous. Never the raw token. */
  viewer: Identity | null;
  store: Store;
  tokens: TokenService;
  /** Fresh for each execution attempt, tied to its signal (the store-policy step makes them). */
  loaders: Loaders;
  logger: Logger;
  requestId: string;
  /** The rate limits: operations are counted by the executor, login and registration by their resolvers. */
  limits: AbuseLimits;
  /** The caller's address as this server trusts it (TRUST_PROXY); undefined for in-process callers. */
  clientAddress?: string;
  /**
   * Aborted when the caller cancels (MCP cancellation, a /graphql client that disconnected) or, inside
   * execution, when the deadline passes; writes check it before committing.
   */
  signal?: AbortSignal;
  /** This call's deadline; the executor's default (GRAPHQL_TIMEOUT_MS) when absent. */
  timeoutMs?: number;
  /**
   * How far this call's writes got: given by the store-policy step, advanced by writeTransaction, read
   * for an honest deadline answer.
   */
  execution: WriteProgress;
  /** Reports a step of a long operation to a caller that asked for progress (MCP progressToken). */
  reportProgress?: (message: string) => void;
  /**
   * The caller's idempotency key for a write (an Idempotency-Key header, a tool's idempotencyKey): the
   * executor checks it and answers a repeat with the stored answer (src/graphql/execute-idempotently.ts).
   */
  idempotencyKey?: string;
  /** Set by the executor while a keyed write runs: the first write transaction reserves the key. */
  reservation?: Reservation;
}

export interface WriteProgress {
  /** How far this request's writes got (src/store/write-transaction.ts). */
  commit: CommitPhase;
}

/**
 * The execution report as the caller's context holds it: the executor writes it once, when it answers
 * (src/graphql/policies/execution-policy.ts has the report each step returns). No step reads it.
 */
interface ExecutionRecord extends WriteProgress {
  /** Attempts made (reads may be retried); 0 when no attempt ran (refused, or answered by a policy). */
  attempts: number;
  /** The answer is the stored one of an earlier call with the same idempotency key. */
  replayed?: boolean;
}

export interface ContextDependencies {
  store: Store;
  tokens: TokenService;
  limits: AbuseLimits;
}

/**
 * What a caller (/graphql, a tool call) hands the executor: everything but the loaders and the write
 * progress, which the executor creates per attempt and per call, and with the record the executor's
 * report is published to.
 */
export type CallContext = Omit<GraphQLContext, 'loaders' | 'execution'> & { execution: ExecutionRecord };

export function createContext(
  deps: ContextDependencies,
  request: Pick<
    CallContext,
    | 'viewer'
    | 'logger'
    | 'requestId'
    | 'signal'
    | 'timeoutMs'
    | 'reportProgress'
    | 'clientAddress'
    | 'idempotencyKey'
  >,
): CallContext {
  // Written out rather than spread: callers hand request objects of several shapes, and spreading them
  // took the slow generic copy (about 3% of a cached tool call's CPU). Absent fields are undefined, as
  // every reader treats them.
  return {
    store: deps.store,
    tokens: deps.tokens,
    limits: deps.limits,
    viewer: request.viewer,
    logger: request.logger,
    requestId: request.requestId,
    signal: request.signal,
    timeoutMs: request.timeoutMs,
    reportProgress: request.reportProgress,
    clientAddress: request.clientAddress,
    idempotencyKey: request.idempotencyKey,
    execution: { attempts: 0, commit: 'none' },
  };
}

/**
 * The viewer's account row: by id for tokens of ours, by subject for an external identity (created on
 * first use). Undefined when anonymous, or when the account was deleted after the token was checked.
 */
export async function viewerAccount(context: GraphQLContext): Promise<User | undefined> {
  const { viewer } = context;
  if (!viewer) return undefined;
  if (viewer.userId !== null) return context.loaders.user.load(viewer.userId);
  return (
    (await context.loaders.userByUsername.load(viewer.subject)) ??
    (await provisionExternalUser(context, viewer.subject))
  );
}

/**
 * The account a field acts for (the owner of what it reads or writes). Who may call the field is @auth's
 * business, checked before the resolver; this only fetches the row, and refuses with UNAUTHORIZED in the
 * rare case that the account disappeared in between.
 */
export async function actingUser(context: GraphQLContext, action: string): Promise<User> {
  const user = await viewerAccount(context);
  if (!user) throw unauthorized(action);
  return user;
}

/**
 * A verified external identity gets a local account (role USER, no usable password) the first time it
 * needs one, so its watch list and reviews have an owner. A concurrent first use may insert it first.
 */
async function provisionExternalUser(context: GraphQLContext, subject: string): Promise<User | undefined> {
  if (!subject.startsWith(EXTERNAL_SUBJECT_PREFIX)) return undefined;
  const localPart = createHash('sha256').update(subject).digest('hex').slice(0, 32);
  try {
    // 'external' is not a scrypt hash, so password sign-in can never succeed for this account. The
    // account is not the write an idempotency key guards: no reservation here.
    const guard = { signal: context.signal, execution: context.execution };
    return await writeTransaction(context.store.handle, guard, (trx) =>
      context.store.accounts.create(
        { username: subject, email: `${localPart}@external.invalid`, passwordHash: 'external', role: 'USER' },
        trx,
      ),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return context.store.accounts.findByUsername(subject);
  }
}
