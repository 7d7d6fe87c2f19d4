/**
 * Response budgets (docs/mcp.md, Response budgets). An answer whose structuredContent would be longer than the budget
 * (MCP_RESULT_MAX_CHARS characters of JSON; the text block repeats it, after a partial answer's error
 * lines, which the cut leaves room for) is cut between items, never
 * inside one, and says so in a `truncated` marker beside `data` and `errors` (declared in the tool's
 * outputSchema) with the complete arguments that fetch the rest:
 * - a list at the root keeps its first items; the rest comes with `offset`;
 * - a page (searchMovies) becomes a smaller page that is a real page of the same query: the count kept
 *   divides the page's start, so the answer is exactly what `page: start / n, size: n` returns, with its
 *   page fields (size, currentPage, totalPages, hasNext, hasPrevious) recomputed to match.
 * At least one item is always kept, so paging makes progress even past an item larger than the budget.
 * Answers that are not lists (one movie, a summary, a write) are never cut.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { OFFSET_ARGUMENT } from '../operations/tool-arguments.js';
import type { ResultShape } from '../operations/result-shape.js';
import {
  isSharedToolResult,
  keepStructuredJson,
  keptStructuredJson,
  type ToolError,
} from './to-call-tool-result.js';
import { toolErrorText } from './tool-error-text.js';

interface Truncation {
  returned: number;
  total: number;
  nextArguments: Record<string, unknown>;
}

interface Structured {
  data: unknown;
  errors: unknown[];
  truncated?: Truncation;
}

interface BudgetedCall {
  /** The call's arguments as given (the basis of nextArguments). */
  args: Record<string, unknown>;
  /** Items of a root list to skip first (the `offset` argument). */
  offset?: number;
}

export function fitResultBudget(
  result: CallToolResult,
  shape: ResultShape | undefined,
  call: BudgetedCall,
  maxChars: number,
): CallToolResult {
  const structured = result.structuredContent as Structured | undefined;
  if (!shape || !structured) return result;
  // A partial answer's text starts with its error lines: the JSON after them gets what they leave.
  const lines = toolErrorText(structured.errors as ToolError[], call.args);
  const room = maxChars - lines.length;
  // Most answers fit whole, which the length of their JSON tells (kept for a shared result).
  if ((call.offset ?? 0) === 0 && structuredLength(result, structured) <= room) return result;
  let fitted: Structured | undefined;
  if (shape.kind === 'list' && Array.isArray(structured.data)) {
    fitted = fitList(structured, structured.data, call, room);
  } else if (shape.kind === 'page' && isPage(structured.data, shape.listKey)) {
    fitted = fitPage(structured, structured.data, shape, call, room);
  }
  if (!fitted) return result;
  const json = JSON.stringify(fitted);
  const structuredContent = { ...fitted };
  keepStructuredJson(structuredContent, json);
  return { ...result, structuredContent, content: [{ type: 'text', text: lines + json }] };
}

/** The JSON length of shared results' structuredContent: they are served many times, unchanged. */
const sharedLengths = new WeakMap<CallToolResult, number>();

/**
 * An answer made for this call is serialized once: its JSON is kept for the response
 * (src/mcp/direct-tool-call.ts), which would otherwise serialize it again. A shared result's is not kept
 * (the response's whole JSON is, there), only its length.
 */
function structuredLength(result: CallToolResult, structured: Structured): number {
  const shared = isSharedToolResult(result);
  const kept = shared ? sharedLengths.get(result) : keptStructuredJson(structured)?.length;
  if (kept !== undefined) return kept;
  const json = JSON.stringify(structured);
  if (shared) sharedLengths.set(result, json.length);
  else keepStructuredJson(structured, json);
  return json.length;
}

function isPage(data: unknown, listKey: string): data is Record<string, unknown> & { totalElements: number } {
  const page = data as Record<string, unknown> | null;
  return !!page && Array.isArray(page[listKey]) && typeof page.totalElements === 'number';
}

/** How many of `items` fit beside `rest` (the answer without them) within the budget; at least one. */
function fittingCount(rest: Structured, items: unknown[], maxChars: number): number {
  // The marker's own length, estimated on the long side (the numbers it will hold are not known yet).
  let used = JSON.stringify(rest).length + 64;
  let count = 0;
  for (const item of items) {
    used += JSON.stringify(item).length + 1;
    if (used > maxChars) break;
    count += 1;
  }
  return Math.max(1, count);
}

function fitList(structured: Structured, list: unknown[], call: BudgetedCall, maxChars: number) {
  const offset = call.offset ?? 0;
  const items = offset > 0 ? list.slice(offset) : list;
  const whole = { ...structured, data: items };
  if (JSON.stringify(whole).length <= maxChars) return offset > 0 ? whole : undefined;
  const marker: Truncation = { returned: 0, total: list.length, nextArguments: call.args };
  const count = fittingCount({ ...structured, data: [], truncated: marker }, items, maxChars);
  if (count >= items.length) return offset > 0 ? whole : undefined;
  return {
    ...structured,
    data: items.slice(0, count),
    truncated: {
      returned: count,
      total: list.length,
      nextArguments: { ...call.args, [OFFSET_ARGUMENT]: offset + count },
    },
  };
}

function fitPage(
  structured: Structured,
  page: Record<string, unknown> & { totalElements: number },
  shape: Extract<ResultShape, { kind: 'page' }>,
  call: BudgetedCall,
  maxChars: number,
) {
  if (JSON.stringify(structured).length <= maxChars) return undefined;
  const items = page[shape.listKey] as unknown[];
  const given = (name: string, fallback: unknown) => {
    const value = call.args[name] ?? fallback;
    return typeof value === 'number' ? value : undefined;
  };
  const size = given(shape.sizeVariable, page.size) ?? items.length;
  const start = (given(shape.pageVariable, page.currentPage) ?? 0) * size;
  const total = page.totalElements;
  const marker: Truncation = { returned: 0, total, nextArguments: call.args };
  let count = fittingCount(
    { ...structured, data: { ...page, [shape.listKey]: [] }, truncated: marker },
    items,
    maxChars,
  );
  if (count >= items.length) return undefined;
  // A smaller page whose boundaries are the page's own: its size divides where the page starts.
  while (start % count !== 0) count -= 1;
  const current = start / count;
  const recomputed: Record<string, unknown> = {
    size: count,
    currentPage: current,
    totalPages: Math.ceil(total / count),
    hasNext: start + count < total,
    hasPrevious: current > 0,
  };
  const data: Record<string, unknown> = { ...page, [shape.listKey]: items.slice(0, count) };
  for (const [key, value] of Object.entries(recomputed)) if (key in page) data[key] = value;
  return {
    ...structured,
    data,
    truncated: {
      returned: count,
      total,
      nextArguments: { ...call.args, [shape.pageVariable]: current + 1, [shape.sizeVariable]: count },
    },
  };
}
