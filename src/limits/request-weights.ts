/**
 * What a request that executes nothing costs, in points of the request limit. One point is about a
 * millisecond of server CPU as measured on the 2-core development machines (one request at a time,
 * RATE_LIMITS=off): any MCP message pays for its own server and transport (about 2.5 ms on 2026-07-28,
 * ping and tools/list alike), initialize also opens a session (about 5 ms with its DELETE), a GraphQL
 * document refused by the parser or validation about 1.1 ms, plus its size. A tools/call's execution is
 * counted by the operation limit; here it pays only for being read.
 */

/** Points per MCP request method; a method not named here costs DEFAULT_METHOD_POINTS. */
export const METHOD_POINTS: Readonly<Record<string, number>> = {
  initialize: 5,
  ping: 2,
  'server/discover': 3,
  'tools/list': 3,
  'tools/call': 1,
  'resources/list': 3,
  'resources/templates/list': 3,
  'resources/read': 3,
  'prompts/list': 3,
  'prompts/get': 3,
  'completion/complete': 3,
};
/** Unknown and unlisted methods: answered early (-32601 and the like), still a server and a transport. */
export const DEFAULT_METHOD_POINTS = 2;
/** Notifications and a client's responses (to elicitation): read and routed, nothing answered. */
export const NOTIFICATION_POINTS = 1;

/** The points of one MCP message (a request, a notification, or a client's response). */
export function mcpMessagePoints(message: unknown): number {
  const method =
    typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined;
  const isRequest = typeof method === 'string' && 'id' in (message as object);
  if (!isRequest) return NOTIFICATION_POINTS;
  return Object.hasOwn(METHOD_POINTS, method) ? METHOD_POINTS[method]! : DEFAULT_METHOD_POINTS;
}

/** Source characters per extra point of a refused document: parsing and validation grow with its size. */
const DOCUMENT_CHARS_PER_POINT = 4096;

/** The points of a GraphQL document refused by the parser or by validation. */
export function refusedDocumentPoints(sourceLength: number): number {
  return 1 + Math.floor(Math.max(0, sourceLength) / DOCUMENT_CHARS_PER_POINT);
}
