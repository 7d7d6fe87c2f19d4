/**
 * Runs one tool call: check the arguments, ask for confirmation where the tool wants it
 * (src/mcp/confirm-call.ts), then execute the operation in-process through the one executor (which owns
 * roles and scopes, the deadline, retries and circuit, idempotency keys, for /graphql and tools alike,
 * given this tool's deadline), map the outcome and fit it to the response budget. A schema tool
 * (src/mcp/schema-tools.ts) gets the same checks, context, audit line and metrics, and runs its own
 * document through the same executor. Every path returns a CallToolResult (or the input-required
 * question); nothing throws.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Identity } from '../auth/identity.js';
import { canonicalJson } from '../canonical-json.js';
import { createContext, type ContextDependencies } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { Logger } from '../logger.js';
import { isSchemaTool, type CatalogueTool } from '../operations/schema-tool.js';
import { isToolVisibleTo } from '../operations/is-tool-visible-to.js';
import { splitToolArguments, type SplitArguments } from '../operations/tool-arguments.js';
import { CANCELLED_MESSAGE } from '../store/store-policy.js';
import { confirmCall, type ConfirmationChannel, type ConfirmationSigner } from './confirm-call.js';
import { fitResultBudget } from './fit-result-budget.js';
import { principalOf } from '../shared-state/session-store.js';
import { toCallToolResult, toolFailure } from './to-call-tool-result.js';

/** Where a client that cannot send an `idempotencyKey` argument puts the key: the request's `_meta`. */
export const IDEMPOTENCY_KEY_META = 'io.moviedb/idempotency-key';
/** Marks an answer that is the stored one of an earlier call with the same idempotency key. */
const IDEMPOTENT_REPLAY_META = 'io.moviedb/idempotent-replay';

export interface ToolCall {
  operation: CatalogueTool;
  args: Record<string, unknown>;
  viewer: Identity | null;
  /** The caller's address (rate limits count anonymous calls by it); undefined in-process. */
  clientAddress?: string;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  requestId: string;
  /** The 2025 session the call came on, if any (the call's log line names it). */
  sessionId?: string;
  logger: Logger;
  /**
   * Puts the call's outcome on its HTTP request's access line; false when that line cannot carry it
   * (written already, or the response was cut), and the call then writes a line of its own.
   */
  annotateAccessLine?: (fields: Record<string, unknown>) => boolean;
  /** Present when the caller sent a progressToken. */
  sendProgress?: (progress: number, total: number | undefined, message: string) => Promise<void>;
  /** The request's `_meta` value of IDEMPOTENCY_KEY_META, if any (checked here: it is client input). */
  metaIdempotencyKey?: unknown;
  /** How the client can be asked to confirm; two steps unless the MCP layer knows better. */
  confirmation?: ConfirmationChannel;
}

export interface ToolRunnerOptions {
  executor: Executor;
  context: ContextDependencies;
  /** A tool's deadline unless tools.json gives it its own `timeoutMs`. */
  defaultTimeoutMs: number;
  /** Observes every finished call (metrics). */
  onToolCall?: (tool: string, outcome: string, seconds: number) => void;
  /** Signs and checks confirmations. */
  confirmations: ConfirmationSigner;
  /** Longest structuredContent, in characters of JSON, before a list answer is cut (MCP_RESULT_MAX_CHARS). */
  resultMaxChars: number;
}

/**
 * The call's result (a tool result, or the input-required question of a 2026-07-28 confirmation) and its
 * outcome class (for metrics and the audit line).
 */
export interface ToolOutcome {
  result: CallToolResult | InputRequiredResult;
  outcome: string;
}

/** Names the argument and says what is wrong with it, in words an agent can act on. */
function describeArgumentError(error: ErrorObject): { field: string; message: string } {
  const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') {
    const field = [base, error.params.missingProperty].filter(Boolean).join('.');
    return { field, message: `missing required argument "${field}"` };
  }
  if (error.keyword === 'additionalProperties') {
    const field = [base, error.params.additionalProperty].filter(Boolean).join('.');
    return { field, message: `unknown argument "${field}"` };
  }
  if (error.keyword === 'enum') {
    return {
      field: base,
      message: `"${base}" must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`,
    };
  }
  if (error.keyword === 'minProperties' || error.keyword === 'maxProperties') {
    return { field: base, message: `"${base}" must have exactly one key` };
  }
  return {
    field: base || '(arguments)',
    message: `"${base || 'arguments'}" ${error.message ?? 'is not valid'}`,
  };
}

/** Arguments at most this long (canonical JSON) have their hash remembered; most calls repeat a few. */
const REMEMBERED_ARGUMENTS_CHARS = 256;
/** Hashes remembered at most; the whole memory is forgotten when full (cheaper than an LRU here). */
const REMEMBERED_HASHES = 1000;
const rememberedHashes = new Map<string, string>();

/**
 * Hash of the arguments for the audit log: correlates calls without writing what they contained.
 * A sha256 per call measured about 1.3% of a cached tool call's CPU; short arguments repeat, so their
 * hashes are remembered.
 */
function hashArguments(args: unknown): string {
  const json = canonicalJson(args);
  const known = rememberedHashes.get(json);
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(json).digest('hex').slice(0, 16);
  if (json.length <= REMEMBERED_ARGUMENTS_CHARS) {
    if (rememberedHashes.size >= REMEMBERED_HASHES) rememberedHashes.clear();
    rememberedHashes.set(json, hash);
  }
  return hash;
}

export function createToolRunner(options: ToolRunnerOptions) {
  function contextFor(call: ToolCall, extra: { idempotencyKey?: string } = {}) {
    const { operation } = call;
    let step = 0;
    const total = operation.settings.progressSteps;
    const reportProgress = call.sendProgress
      ? (message: string) => void call.sendProgress?.(++step, total, message).catch(() => undefined)
      : undefined;
    return createContext(options.context, {
      viewer: call.viewer,
      clientAddress: call.clientAddress,
      logger: call.logger,
      requestId: call.requestId,
      signal: call.signal,
      timeoutMs: operation.settings.timeoutMs ?? options.defaultTimeoutMs,
      reportProgress,
      ...extra,
    });
  }

  async function execute(
    call: ToolCall,
    split: SplitArguments,
    idempotencyKey: string | undefined,
  ): Promise<{ result: CallToolResult; attempts: number }> {
    const { operation } = call;
    const context = contextFor(call, idempotencyKey === undefined ? {} : { idempotencyKey });
    if (isSchemaTool(operation)) {
      const result = await operation.run(call.args, context);
      if (call.signal.aborted) throw call.signal.reason;
      return {
        result: context.execution.replayed
          ? { ...result, _meta: { [IDEMPOTENT_REPLAY_META]: true } }
          : result,
        attempts: context.execution.attempts,
      };
    }
    const result = await options.executor.run({
      document: operation.document,
      variables: split.variables,
      context,
    });
    // The SDK sends no response to a cancelled request; the audit line still records it.
    if (call.signal.aborted) throw call.signal.reason;
    const total = operation.settings.progressSteps;
    await call.sendProgress?.(total ?? 1, total ?? 1, 'Done').catch(() => undefined);
    const mapped = fitResultBudget(
      toCallToolResult(
        result,
        operation.rootKey,
        operation.settings.allowPartialData,
        operation.renderText,
        call.args,
      ),
      operation.resultShape,
      { args: call.args, offset: split.offset },
      options.resultMaxChars,
    );
    return {
      result: context.execution.replayed ? { ...mapped, _meta: { [IDEMPOTENT_REPLAY_META]: true } } : mapped,
      attempts: context.execution.attempts,
    };
  }

  /** Asks for confirmation where the tool wants it, else runs the call. */
  async function confirmAndExecute(
    call: ToolCall,
  ): Promise<{ result: CallToolResult | InputRequiredResult; attempts: number; outcome?: string }> {
    const { operation } = call;
    const split = splitToolArguments(call.args);
    const metaKey = call.metaIdempotencyKey;
    if (metaKey !== undefined && typeof metaKey !== 'string') {
      return { result: keyRefusal(`_meta "${IDEMPOTENCY_KEY_META}" must be a string`), attempts: 0 };
    }
    if (metaKey !== undefined && split.idempotencyKey !== undefined && metaKey !== split.idempotencyKey) {
      return { result: keyRefusal(`_meta "${IDEMPOTENCY_KEY_META}" and idempotencyKey differ`), attempts: 0 };
    }
    if (isSchemaTool(operation))
      return execute(call, split, split.idempotencyKey ?? (metaKey as string | undefined));
    const preview = operation.preview;
    const decision = await confirmCall(options.confirmations, {
      operation,
      variables: split.variables,
      confirmationToken: split.confirmationToken,
      principal: principalOf(call.viewer?.subject ?? null, call.clientAddress ?? 'in-process'),
      mayCall: isToolVisibleTo(operation, call.viewer),
      channel: call.confirmation ?? { kind: 'two-step' },
      runPreview: () =>
        options.executor.run({
          document: preview!.document,
          variables: Object.fromEntries(
            preview!.variables
              .filter((name) => name in split.variables)
              .map((name) => [name, split.variables[name]]),
          ),
          context: contextFor(call),
        }),
    });
    if (decision.kind === 'ask')
      return { result: decision.result, attempts: 0, outcome: 'CONFIRMATION_REQUIRED' };
    if (decision.kind === 'answer')
      return { result: decision.result, attempts: 0, outcome: decision.outcome };
    return execute(call, split, split.idempotencyKey ?? (metaKey as string | undefined));
  }

  return async function runTool(asked: ToolCall): Promise<ToolOutcome> {
    const { operation, viewer } = asked;
    // The arguments as the tool reads them from here on (validation, confirmation, paging, the audit hash).
    // A schema tool's arguments are not an operation's variables: nothing of theirs has a GraphQL default.
    const args = isSchemaTool(operation) ? asked.args : operation.omitDefaultedNulls(asked.args);
    const call = { ...asked, args };
    const started = performance.now();
    let attempts = 0;
    let result: CallToolResult | InputRequiredResult;
    let outcome: string;
    try {
      const refusal = checkCall(call);
      let named: string | undefined;
      if (refusal) result = refusal;
      else ({ result, attempts, outcome: named } = await confirmAndExecute(call));
      outcome = named ?? outcomeOf(result as CallToolResult);
    } catch (error) {
      if (call.signal.aborted) {
        // The client cancelled: the SDK sends no response to a cancelled request.
        result = toolFailure('BAD_REQUEST', CANCELLED_MESSAGE);
        outcome = 'CANCELLED';
      } else {
        const reference = randomUUID();
        call.logger.error(
          { err: error, reference, tool: operation.toolName, mcpRequestId: call.requestId },
          'tool call failed unexpectedly',
        );
        result = toolFailure('INTERNAL_ERROR', `An unexpected error occurred. Reference: ${reference}`, {
          reference,
        });
        outcome = 'INTERNAL_ERROR';
      }
    }
    const latencyMs = performance.now() - started;
    options.onToolCall?.(operation.toolName, outcome, latencyMs / 1000);
    const record = {
      audit: 'tool_call',
      subject: viewer?.subject ?? null,
      tool: operation.toolName,
      argsHash: hashArguments(call.args),
      outcome,
      attempts,
      latencyMs: Math.round(latencyMs * 100) / 100,
      mcpRequestId: call.requestId,
      ...(call.sessionId === undefined ? {} : { sessionId: call.sessionId }),
    };
    // One line per call: its request's access line, unless no response will carry the answer (a
    // cancelled call gets none) or the line is gone; then the record is a line of its own.
    if (outcome === 'CANCELLED' || !call.annotateAccessLine?.(record)) call.logger.info(record, 'tool call');
    return { result, outcome };
  };

  /**
   * The check that needs no backend: the arguments. Roles and scopes are the executor's (@auth in the
   * schema), so a tool obeys exactly the rule its /graphql twin does.
   */
  function checkCall(call: ToolCall): CallToolResult | undefined {
    const { operation, args } = call;
    const validate = operation.validateArguments;
    if (!validate(args)) {
      const { field, message } = describeArgumentError(validate.errors![0]!);
      return toolFailure('BAD_REQUEST', `Invalid arguments for ${operation.toolName}: ${message}`, { field });
    }
    return undefined;
  }
}

function keyRefusal(problem: string): CallToolResult {
  return toolFailure('BAD_REQUEST', `Invalid idempotency key: ${problem}`, { field: 'idempotencyKey' });
}

function outcomeOf(result: CallToolResult): string {
  const errors =
    (result.structuredContent as { errors?: { classification: string }[] } | undefined)?.errors ?? [];
  if (!result.isError) return errors.length > 0 ? 'PARTIAL' : 'OK';
  return errors[0]?.classification ?? 'ERROR';
}

export type ToolRunner = ReturnType<typeof createToolRunner>;
