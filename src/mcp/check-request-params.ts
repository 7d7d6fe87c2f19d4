/**
 * Checks a JSON-RPC request's params before the SDK sees them. The SDK parses params with its own
 * schemas and answers a mismatch as -32603 carrying the raw validator issue list, and recursion over
 * arguments nested thousands deep overflows the stack (-32603 too). The spec's answer to both is
 * -32602 Invalid params, with a message an agent can act on: one line naming the field.
 */
import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const SCHEMAS = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/** Whether a JSON value nests deeper than `max` levels; iterative, so the check itself cannot overflow. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The problem with a request's params as one line (`Invalid params: params.name: expected string,
 * received number`), or undefined when they are fine or the method is not one we know (the SDK then
 * answers -32601).
 */
export function checkRequestParams(
  message: { method?: unknown; params?: unknown },
  maxDepth: number,
): string | undefined {
  // params sits one level above the tool arguments, which get the whole allowance.
  if (nestsDeeperThan(message.params, maxDepth + 1)) {
    return `Invalid params: nested deeper than ${maxDepth} levels`;
  }
  const schema = typeof message.method === 'string' ? SCHEMAS.get(message.method) : undefined;
  if (!schema) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.') || 'params';
  const problem = issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/g, 'object');
  return `Invalid params: ${field}: ${problem}`;
}
