/**
 * Checks a JSON-RPC request's params before the SDK sees them. The SDK parses params with its own
 * schemas and answers a mismatch as -32603 carrying the raw validator issue list, and recursion over
 * arguments nested thousands deep overflows the stack (-32603 too). The spec's answer to both is
 * -32602 Invalid params, with a message an agent can act on: one line naming the field.
 */
import { PROTOCOL_VERSION_META_KEY, specTypeSchemas } from '@modelcontextprotocol/server';
import { isPlainObject } from '../is-plain-object.js';

/** The requests a client may send, by method, with the SDK's schema for each (both eras). */
const SCHEMAS = new Map(
  (
    [
      ['initialize', specTypeSchemas.InitializeRequest],
      ['ping', specTypeSchemas.PingRequest],
      ['server/discover', specTypeSchemas.DiscoverRequest],
      ['tools/list', specTypeSchemas.ListToolsRequest],
      ['tools/call', specTypeSchemas.CallToolRequest],
      ['logging/setLevel', specTypeSchemas.SetLevelRequest],
      ['completion/complete', specTypeSchemas.CompleteRequest],
      ['prompts/list', specTypeSchemas.ListPromptsRequest],
      ['prompts/get', specTypeSchemas.GetPromptRequest],
      ['resources/list', specTypeSchemas.ListResourcesRequest],
      ['resources/templates/list', specTypeSchemas.ListResourceTemplatesRequest],
      ['resources/read', specTypeSchemas.ReadResourceRequest],
      ['resources/subscribe', specTypeSchemas.SubscribeRequest],
      ['resources/unsubscribe', specTypeSchemas.UnsubscribeRequest],
    ] as const
  ).map(([method, schema]) => [method as string, schema['~standard']]),
);

/** Methods of the 2025 revisions that 2026-07-28 removed: the SDK answers them -32601 (HTTP 404) there. */
const REMOVED_IN_2026 = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * Whether a message claims the 2026-07-28 revision: its params carry the per-request `_meta` envelope's
 * protocol version (the SDK's own criterion for routing a request away from the 2025-era handling).
 */
export function hasEnvelopeClaim(message: { params?: unknown }): boolean {
  const meta = (message.params as { _meta?: unknown } | null | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * Whether a JSON value nests deeper than `max` levels; iterative, so the check itself cannot overflow.
 * Two parallel stacks holding only objects: no pair allocated per node, no array of values per object.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > max) return true;
    // A JSON value's objects have no enumerable inherited keys: for-in walks its own, as Object.values.
    for (const key in node) {
      const child = node[key];
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * A tools/call whose params the SDK's schema accepts for certain, decided without running it (the hot
 * request; the schema is loose, so these conditions imply success): a string name, arguments absent or
 * an object, `_meta` absent or an object without the two keys the schema types, no `task`.
 */
function isPlainToolCall(params: unknown): boolean {
  if (!isPlainObject(params) || typeof params.name !== 'string' || params.task !== undefined) return false;
  const { arguments: args, _meta: meta } = params;
  if (args !== undefined && !isPlainObject(args)) return false;
  if (meta === undefined) return true;
  return (
    isPlainObject(meta) &&
    meta.progressToken === undefined &&
    meta['io.modelcontextprotocol/related-task'] === undefined
  );
}

/**
 * The problem with a request's params as one line (`Invalid params: params.name: expected string,
 * received number`), or undefined when they are fine or the method is not one the message's revision
 * has (the SDK then answers -32601).
 */
export function checkRequestParams(
  message: { method?: unknown; params?: unknown },
  maxDepth: number,
): string | undefined {
  // params sits one level above the tool arguments, which get the whole allowance.
  if (nestsDeeperThan(message.params, maxDepth + 1)) {
    return `Invalid params: nested deeper than ${maxDepth} levels`;
  }
  const method = typeof message.method === 'string' ? message.method : undefined;
  if (method === undefined || (REMOVED_IN_2026.has(method) && hasEnvelopeClaim(message))) return undefined;
  if (method === 'tools/call' && isPlainToolCall(message.params)) return undefined;
  const schema = SCHEMAS.get(method);
  if (!schema) return undefined;
  const { issues } = schema.validate(message);
  if (!issues) return undefined;
  const issue = issues[0]!;
  const field =
    (issue.path ?? []).map((key) => String(typeof key === 'object' ? key.key : key)).join('.') || 'params';
  const problem = issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/g, 'object');
  return `Invalid params: ${field}: ${problem}`;
}
