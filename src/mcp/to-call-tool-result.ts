/**
 * Maps a GraphQL execution result to a CallToolResult (docs/contract.md, MCP tools): structuredContent carries
 * `{ data, errors }` on every path, so the classification always reaches the agent; isError marks
 * anything short of full success. The text block is for clients that show a model only the text: a
 * success is the JSON (or, for a tool that opts in with `text` in tools.json, a short sentence); an
 * answer with errors starts with one line per error, classification and retry first
 * (tool-error-text.ts), followed by the JSON when there is data.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { CLASSIFICATIONS, RETRYABLE, type Classification } from '../errors.js';
import { toolErrorText } from './tool-error-text.js';

export interface ToolError {
  message: string;
  path: (string | number)[] | null;
  classification: Classification;
  retryable: boolean;
  extensions?: Record<string, unknown>;
}

function classificationOf(value: unknown): Classification {
  return CLASSIFICATIONS.includes(value as Classification) ? (value as Classification) : 'INTERNAL_ERROR';
}

export function toToolError(error: Pick<GraphQLError, 'message' | 'path' | 'extensions'>): ToolError {
  const { classification, retryable, ...rest } = error.extensions ?? {};
  const kind = classificationOf(classification);
  return {
    message: error.message,
    path: error.path ? [...error.path] : null,
    classification: kind,
    // An error can overrule its classification's default (a deadline after a commit is not retryable).
    retryable: typeof retryable === 'boolean' ? retryable : RETRYABLE[kind],
    ...(Object.keys(rest).length > 0 ? { extensions: rest } : {}),
  };
}

function envelope(data: unknown, errors: ToolError[], isError: boolean, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { data, errors }, isError };
}

/**
 * The JSON of structuredContent objects that were serialized already (a success's text block is that
 * JSON; a cut answer's too): the budget check and the response reuse it instead of serializing the
 * answer again. Kept per object, so a changed copy is serialized afresh; nothing changes one in place.
 */
const structuredJsons = new WeakMap<object, string>();

/** Remembers `json` as the serialization of `structured` (exactly what JSON.stringify gives for it). */
export function keepStructuredJson(structured: object, json: string): void {
  structuredJsons.set(structured, json);
}

/** The JSON of this structuredContent if it was serialized already. */
export function keptStructuredJson(structured: unknown): string | undefined {
  return typeof structured === 'object' && structured !== null ? structuredJsons.get(structured) : undefined;
}

/**
 * The text block of `{ data, errors }`: the error lines, then the JSON unless the data is null (a total
 * failure is said by its lines alone). `args` are the call's, to name the argument at fault.
 */
export function toolResultText(
  structured: { data: unknown; errors: readonly ToolError[] } & Record<string, unknown>,
  args?: Record<string, unknown>,
): string {
  const lines = toolErrorText(structured.errors, args);
  if (lines && structured.data === null) return lines.trimEnd();
  return lines + JSON.stringify(structured);
}

/**
 * Mappings of shared results (the result cache's, which are frozen and served to many callers): mapped
 * and serialized once, not on every call that is served one.
 */
const sharedMappings = new WeakMap<ExecutionResult, { mappedBy: unknown[]; mapped: CallToolResult }>();
const sharedToolResults = new WeakSet<CallToolResult>();

/** Whether this tool result is the one mapping of a shared result (its serialization can be kept too). */
export function isSharedToolResult(result: CallToolResult): boolean {
  return sharedToolResults.has(result);
}

/**
 * `rootKey`: the response key whose value is the tool's `data`, or null for the whole of GraphQL's
 * `data` (executeGraphQL); `args`: the call's arguments, so that an error's text can name the one at fault.
 */
export function toCallToolResult(
  result: ExecutionResult,
  rootKey: string | null,
  allowPartialData: boolean,
  renderText?: (data: unknown) => string,
  args?: Record<string, unknown>,
): CallToolResult {
  // An answer with errors names this call's arguments in its text, so it is never shared.
  if (!Object.isFrozen(result) || (result.errors?.length ?? 0) > 0)
    return mapResult(result, rootKey, allowPartialData, renderText, args);
  // Kept per mapping: a reloaded operation may map the same shared result differently.
  const mappedBy = [rootKey, allowPartialData, renderText];
  const kept = sharedMappings.get(result);
  if (kept && kept.mappedBy.every((part, index) => part === mappedBy[index])) return kept.mapped;
  const mapped = mapResult(result, rootKey, allowPartialData, renderText);
  sharedMappings.set(result, { mappedBy, mapped });
  sharedToolResults.add(mapped);
  return mapped;
}

function mapResult(
  result: ExecutionResult,
  rootKey: string | null,
  allowPartialData: boolean,
  renderText: ((data: unknown) => string) | undefined,
  args?: Record<string, unknown>,
): CallToolResult {
  const whole = result.data as Record<string, unknown> | null | undefined;
  const data = (rootKey === null ? whole : whole?.[rootKey]) ?? null;
  const errors = (result.errors ?? []).map(toToolError);
  if (errors.length === 0) {
    if (renderText) return envelope(data, errors, false, renderText(data));
    const json = JSON.stringify({ data, errors });
    const mapped = envelope(data, errors, false, json);
    keepStructuredJson(mapped.structuredContent!, json);
    return mapped;
  }
  return envelope(data, errors, data === null || !allowPartialData, toolResultText({ data, errors }, args));
}

/** A failure raised by the tool layer itself (arguments, deadline, circuit, confirmation), in the same shape. */
export function toolFailure(
  classification: Classification,
  message: string,
  extensions?: Record<string, unknown>,
  args?: Record<string, unknown>,
): CallToolResult {
  const error: ToolError = {
    message,
    path: null,
    classification,
    retryable: RETRYABLE[classification],
    ...(extensions ? { extensions } : {}),
  };
  return envelope(null, [error], true, toolResultText({ data: null, errors: [error] }, args));
}
