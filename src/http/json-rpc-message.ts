/** The JSON-RPC messages a 2025 session or stateless POST carries, and what each kind needs checked. */

export type JsonRpcMessage = {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
};

export function isCancellation(message: JsonRpcMessage): boolean {
  return message.method === 'notifications/cancelled' && message.id === undefined;
}

/**
 * A request that asked to be told its progress (`_meta.progressToken`, MCP "Progress"): its answer is
 * an SSE stream, so the notifications can go out before the response.
 */
export function asksForProgress(message: JsonRpcMessage): boolean {
  const meta = message.params?._meta;
  return (
    typeof meta === 'object' &&
    meta !== null &&
    (meta as { progressToken?: unknown }).progressToken !== undefined
  );
}

/** A JSON-RPC response the client POSTs: its answer to a request of ours (elicitation/create). */
export function isClientResponse(message: JsonRpcMessage): boolean {
  return message.method === undefined && ('result' in message || 'error' in message);
}

/** What is wrong with a response the client POSTed, if anything (JSON-RPC 2.0, section 5). */
export function responseProblem(
  message: JsonRpcMessage & { result?: unknown; error?: unknown },
): string | undefined {
  if (message.jsonrpc !== '2.0') return 'a response must say "jsonrpc": "2.0"';
  if ('result' in message && 'error' in message) return 'a response carries result or error, not both';
  const { id } = message as { id?: unknown };
  if (typeof id !== 'string' && typeof id !== 'number' && id !== null)
    return 'a response names the request it answers by its id (a string or a number)';
  const value = 'result' in message ? message.result : message.error;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `a response's ${'result' in message ? 'result' : 'error'} must be an object`;
  return undefined;
}
