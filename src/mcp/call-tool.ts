/**
 * Runs one tool call: check the arguments, then execute the operation in-process through the one
 * executor (which owns roles and scopes, the deadline, retries and circuit for /graphql and tools alike,
 * given this tool's deadline), and map the outcome. Every path returns a CallToolResult; nothing throws.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Identity } from '../auth/identity.js';
import { createContext, type ContextDependencies } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { Logger } from '../logger.js';
import type { CuratedOperation } from '../operations/load-operations.js';
import { CANCELLED_MESSAGE } from '../store/store-policy.js';
import { toCallToolResult, toolFailure } from './to-call-tool-result.js';

export interface ToolCall {
  operation: CuratedOperation;
  args: Record<string, unknown>;
  viewer: Identity | null;
  /** The caller's address (rate limits count anonymous calls by it); undefined in-process. */
  clientAddress?: string;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  requestId: string;
  logger: Logger;
  /** Present when the caller sent a progressToken. */
  sendProgress?: (progress: number, total: number | undefined, message: string) => Promise<void>;
}

export interface ToolRunnerOptions {
  executor: Executor;
  context: ContextDependencies;
  operations: readonly CuratedOperation[];
  /** A tool's deadline unless tools.json gives it its own `timeoutMs`. */
  defaultTimeoutMs: number;
  /** Observes every finished call (metrics). */
  onToolCall?: (tool: string, outcome: string, seconds: number) => void;
}

/** The call's result and its outcome class (for metrics and the audit line). */
export interface ToolOutcome {
  result: CallToolResult;
  outcome: string;
}

type Validators = Map<string, ValidateFunction>;

function compileValidators(operations: readonly CuratedOperation[]): Validators {
  const ajv = new Ajv2020({ allErrors: false, strict: false, useDefaults: false, coerceTypes: false });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  return new Map(operations.map((op) => [op.toolName, ajv.compile(op.tool.inputSchema)]));
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

/** Hash of the arguments for the audit log: correlates calls without writing what they contained. */
function hashArguments(args: unknown): string {
  const stable = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(stable)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(stable(args)))
    .digest('hex')
    .slice(0, 16);
}

export function createToolRunner(options: ToolRunnerOptions) {
  const validators = compileValidators(options.operations);

  async function execute(call: ToolCall): Promise<{ result: CallToolResult; attempts: number }> {
    const { operation } = call;
    let step = 0;
    const total = operation.settings.progressSteps;
    const reportProgress = call.sendProgress
      ? (message: string) => void call.sendProgress?.(++step, total, message).catch(() => undefined)
      : undefined;
    const context = createContext(options.context, {
      viewer: call.viewer,
      clientAddress: call.clientAddress,
      logger: call.logger,
      requestId: call.requestId,
      signal: call.signal,
      timeoutMs: operation.settings.timeoutMs ?? options.defaultTimeoutMs,
      reportProgress,
    });
    const result = await options.executor.run({
      document: operation.document,
      variables: call.args,
      context,
    });
    // The SDK sends no response to a cancelled request; the audit line still records it.
    if (call.signal.aborted) throw call.signal.reason;
    await call.sendProgress?.(total ?? step + 1, total ?? step + 1, 'Done').catch(() => undefined);
    return {
      result: toCallToolResult(result, operation.rootKey, operation.settings.allowPartialData),
      attempts: context.execution.attempts,
    };
  }

  return async function runTool(call: ToolCall): Promise<ToolOutcome> {
    const { operation, viewer } = call;
    const started = performance.now();
    let attempts = 0;
    let result: CallToolResult;
    let outcome: string;
    try {
      const refusal = checkCall(call);
      if (refusal) result = refusal;
      else ({ result, attempts } = await execute(call));
      outcome = outcomeOf(result);
    } catch (error) {
      if (call.signal.aborted) {
        // The client cancelled: the SDK sends no response to a cancelled request.
        result = toolFailure('BAD_REQUEST', CANCELLED_MESSAGE);
        outcome = 'CANCELLED';
      } else {
        const reference = randomUUID();
        call.logger.error(
          { err: error, reference, tool: operation.toolName },
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
    call.logger.info(
      {
        audit: 'tool_call',
        subject: viewer?.subject ?? null,
        tool: operation.toolName,
        argsHash: hashArguments(call.args),
        outcome,
        attempts,
        latencyMs: Math.round(latencyMs * 100) / 100,
      },
      'tool call',
    );
    return { result, outcome };
  };

  /**
   * The check that needs no backend: the arguments. Roles and scopes are the executor's (@auth in the
   * schema), so a tool obeys exactly the rule its /graphql twin does.
   */
  function checkCall(call: ToolCall): CallToolResult | undefined {
    const { operation, args } = call;
    const validate = validators.get(operation.toolName);
    if (validate && !validate(args)) {
      const { field, message } = describeArgumentError(validate.errors![0]!);
      return toolFailure('BAD_REQUEST', `Invalid arguments for ${operation.toolName}: ${message}`, { field });
    }
    return undefined;
  }
}

function outcomeOf(result: CallToolResult): string {
  const errors =
    (result.structuredContent as { errors?: { classification: string }[] } | undefined)?.errors ?? [];
  if (!result.isError) return errors.length > 0 ? 'PARTIAL' : 'OK';
  return errors[0]?.classification ?? 'ERROR';
}

export type ToolRunner = ReturnType<typeof createToolRunner>;
