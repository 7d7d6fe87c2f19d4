/**
 * The closed list of transport refusals: every answer /graphql and /mcp give before (or instead of)
 * running an operation or a JSON-RPC method. Each has a stable code, its HTTP status, the classification
 * a client reads, the JSON-RPC error code on /mcp, a message template (`{name}` filled from the
 * refusal's parameters) and, where a client should wait, Retry-After. Errors raised while an operation
 * runs are errors.ts's; this list is what the transport itself says. The documented table (docs/errors.md,
 * or the README's Errors section until it moves) is kept equal to this list by a test, as fastify keeps
 * its errors and their page in step.
 */
import type { Classification } from './errors.js';

export interface RefusalSpec {
  endpoint: '/graphql' | '/mcp';
  status: number;
  classification: Classification;
  /** The JSON-RPC error code of the /mcp answer's body. */
  jsonRpcCode?: number;
  /** The client-facing message; `{name}` is filled from the refusal's parameters. */
  message: string;
  /** Sent as Retry-After (and as retryAfterSeconds in the body) when a retry may succeed later. */
  retryAfterSeconds?: number;
  /** Headers the answer carries (templates, like the message). */
  headers?: Readonly<Record<string, string>>;
}

const graphql = (
  status: number,
  classification: Classification,
  message: string,
  more: Partial<RefusalSpec> = {},
): RefusalSpec => ({ endpoint: '/graphql', status, classification, message, ...more });

const mcp = (
  status: number,
  jsonRpcCode: number,
  classification: Classification,
  message: string,
  more: Partial<RefusalSpec> = {},
): RefusalSpec => ({ endpoint: '/mcp', status, jsonRpcCode, classification, message, ...more });

const DRAINING = 'The server is shutting down; retry the request (another instance will take it)';
const SESSION_STATE =
  'Service Unavailable: MCP session state is unavailable right now; retry shortly. The 2026-07-28 ' +
  'revision and stateless mode need no session state.';

export const TRANSPORT_REFUSALS = {
  // /graphql: the request's headers, its body, its token, then graphql-http's own checks.
  'graphql.draining': graphql(503, 'UNAVAILABLE', DRAINING, {
    retryAfterSeconds: 5,
    headers: { Connection: 'close' },
  }),
  'graphql.host-not-allowed': graphql(403, 'FORBIDDEN', 'Forbidden: Host {host} is not allowed'),
  'graphql.body-too-large': graphql(413, 'BAD_REQUEST', 'The request body is too large'),
  'graphql.body-not-json': graphql(400, 'BAD_REQUEST', 'The request body is not valid JSON'),
  'graphql.charset-unsupported': graphql(
    415,
    'BAD_REQUEST',
    'The request body charset is not supported; use UTF-8',
  ),
  'graphql.encoding-unsupported': graphql(
    415,
    'BAD_REQUEST',
    'The request Content-Encoding is not supported; send the body plain, or as gzip, deflate or br',
  ),
  'graphql.encoding-mismatch': graphql(
    400,
    'BAD_REQUEST',
    'The request body does not match its Content-Encoding',
  ),
  'graphql.request-aborted': graphql(400, 'BAD_REQUEST', 'The request was aborted'),
  'graphql.request-unprocessable': graphql(400, 'BAD_REQUEST', 'The request could not be processed'),
  // Refused by Node's HTTP parser before Express (http/answer-client-errors.ts); paths other than /mcp
  // and the OAuth routes get these too, and the OAuth routes their status and message as OAuth errors.
  'graphql.http-malformed': graphql(400, 'BAD_REQUEST', 'The request is not valid HTTP/1.1'),
  'graphql.headers-too-large': graphql(431, 'BAD_REQUEST', 'The request headers are too large'),
  'graphql.chunk-extensions-too-large': graphql(413, 'BAD_REQUEST', 'The chunk extensions are too large'),
  'graphql.request-timeout': graphql(408, 'TIMEOUT', 'The request did not arrive in time'),
  'graphql.token-invalid': graphql(401, 'UNAUTHORIZED', '{reason}', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="{reason}"' },
  }),
  'graphql.method-not-allowed': graphql(
    405,
    'BAD_REQUEST',
    'Method {method} is not allowed on /graphql: use GET for queries, POST for any operation',
    { headers: { Allow: 'GET, POST' } },
  ),
  'graphql.mutation-over-get': graphql(
    405,
    'BAD_REQUEST',
    'Cannot perform mutations over GET: send mutations with POST',
    { headers: { Allow: 'POST' } },
  ),
  'graphql.not-acceptable': graphql(
    406,
    'BAD_REQUEST',
    'Not Acceptable: accept application/graphql-response+json or application/json',
  ),
  'graphql.unsupported-media-type': graphql(
    415,
    'BAD_REQUEST',
    'Unsupported Media Type: send the operation as JSON with Content-Type application/json, or as a GET query string',
  ),

  // /mcp: Origin and Host, method, protocol revision, bearer token, body, JSON-RPC, scope, session.
  'mcp.draining': mcp(503, -32000, 'UNAVAILABLE', `Service Unavailable: ${DRAINING}`, {
    retryAfterSeconds: 5,
    headers: { Connection: 'close' },
  }),
  'mcp.host-not-allowed': mcp(403, -32000, 'FORBIDDEN', 'Forbidden: Host {host} is not allowed'),
  'mcp.origin-malformed': mcp(403, -32000, 'FORBIDDEN', 'Forbidden: malformed Origin'),
  'mcp.origin-not-allowed': mcp(403, -32000, 'FORBIDDEN', 'Forbidden: Origin {origin} is not allowed'),
  'mcp.method-not-allowed': mcp(405, -32000, 'BAD_REQUEST', 'Method {method} is not allowed on /mcp', {
    headers: { Allow: '{allowed}' },
  }),
  'mcp.protocol-version-unsupported': mcp(
    400,
    -32000,
    'BAD_REQUEST',
    'Bad Request: unsupported MCP-Protocol-Version {version}; supported: {supported}',
  ),
  'mcp.token-required': mcp(401, -32001, 'UNAUTHORIZED', 'Unauthorized: a bearer token is required', {
    headers: { 'WWW-Authenticate': 'Bearer resource_metadata="{resourceMetadata}"' },
  }),
  'mcp.token-invalid': mcp(401, -32001, 'UNAUTHORIZED', 'Unauthorized: {reason}', {
    headers: {
      'WWW-Authenticate': 'Bearer error="invalid_token", resource_metadata="{resourceMetadata}"',
    },
  }),
  'mcp.body-too-large': mcp(413, -32600, 'BAD_REQUEST', 'Invalid Request: the body is too large'),
  'mcp.body-not-json': mcp(400, -32700, 'BAD_REQUEST', 'The request body is not valid JSON'),
  'mcp.charset-unsupported': mcp(
    415,
    -32000,
    'BAD_REQUEST',
    'The request body charset is not supported; use UTF-8',
  ),
  'mcp.encoding-unsupported': mcp(
    415,
    -32000,
    'BAD_REQUEST',
    'The request Content-Encoding is not supported; send the body plain, or as gzip, deflate or br',
  ),
  'mcp.encoding-mismatch': mcp(
    400,
    -32700,
    'BAD_REQUEST',
    'The request body does not match its Content-Encoding',
  ),
  'mcp.request-aborted': mcp(400, -32700, 'BAD_REQUEST', 'The request was aborted'),
  // Refused by Node's HTTP parser before Express (http/answer-client-errors.ts).
  'mcp.http-malformed': mcp(400, -32600, 'BAD_REQUEST', 'Invalid Request: the request is not valid HTTP/1.1'),
  'mcp.headers-too-large': mcp(
    431,
    -32600,
    'BAD_REQUEST',
    'Invalid Request: the request headers are too large',
  ),
  'mcp.chunk-extensions-too-large': mcp(
    413,
    -32600,
    'BAD_REQUEST',
    'Invalid Request: the chunk extensions are too large',
  ),
  'mcp.request-timeout': mcp(408, -32600, 'TIMEOUT', 'Invalid Request: the request did not arrive in time'),
  'mcp.body-unreadable': mcp(400, -32700, 'BAD_REQUEST', 'Parse error: the body could not be read'),
  'mcp.unsupported-media-type': mcp(
    415,
    -32000,
    'BAD_REQUEST',
    'Unsupported Media Type: Content-Type must be application/json',
  ),
  'mcp.parse-error': mcp(400, -32700, 'BAD_REQUEST', 'Parse error: the body is not valid JSON'),
  'mcp.batch': mcp(
    400,
    -32600,
    'BAD_REQUEST',
    'Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18)',
  ),
  'mcp.not-a-message': mcp(
    400,
    -32600,
    'BAD_REQUEST',
    'Invalid Request: the body must be a JSON-RPC message object',
  ),
  // A request's error is a JSON-RPC response to it: HTTP 200, the request's id.
  'mcp.invalid-params': mcp(200, -32602, 'BAD_REQUEST', '{problem}'),
  'mcp.nested-too-deep': mcp(
    400,
    -32600,
    'BAD_REQUEST',
    'Invalid Request: the message is nested deeper than {maxDepth} levels',
  ),
  'mcp.insufficient-scope': mcp(403, -32001, 'FORBIDDEN', 'Forbidden: {description}', {
    headers: {
      'WWW-Authenticate':
        'Bearer error="insufficient_scope", scope="{wanted}", resource_metadata="{resourceMetadata}", error_description="{description}"',
    },
  }),
  'mcp.session-id-required-initialize': mcp(
    400,
    -32000,
    'BAD_REQUEST',
    'Bad Request: Mcp-Session-Id header is required (send initialize first)',
  ),
  'mcp.session-id-required': mcp(
    400,
    -32000,
    'BAD_REQUEST',
    'Bad Request: Mcp-Session-Id header is required',
  ),
  'mcp.session-not-found-initialize': mcp(
    404,
    -32001,
    'NOT_FOUND',
    'Session not found: start a new session with initialize',
  ),
  'mcp.session-not-found': mcp(404, -32001, 'NOT_FOUND', 'Session not found'),
  'mcp.invalid-response': mcp(400, -32600, 'BAD_REQUEST', 'Invalid Request: {problem}'),
  'mcp.sessions-per-client': mcp(
    429,
    -32000,
    'RATE_LIMITED',
    'Too Many Requests: this client holds as many sessions as it may, each with a request in flight; end one with DELETE or reuse it',
    { retryAfterSeconds: 10 },
  ),
  'mcp.sessions-busy': mcp(
    503,
    -32000,
    'UNAVAILABLE',
    'Service Unavailable: too many sessions are busy; try again later',
    { retryAfterSeconds: 30 },
  ),
  'mcp.session-state-unavailable': mcp(503, -32000, 'UNAVAILABLE', SESSION_STATE, { retryAfterSeconds: 5 }),
  'mcp.stream-not-sse': mcp(
    406,
    -32000,
    'BAD_REQUEST',
    'Not Acceptable: Client must accept text/event-stream',
  ),
  'mcp.stream-conflict': mcp(
    409,
    -32000,
    'BAD_REQUEST',
    'Conflict: Only one SSE stream is allowed per session',
  ),
  'mcp.last-event-id-unknown': mcp(
    400,
    -32000,
    'BAD_REQUEST',
    'Bad Request: Last-Event-ID names no resumable stream of this session (malformed, unknown, expired, or another session’s)',
  ),
  'mcp.stream-complete': mcp(
    409,
    -32000,
    'BAD_REQUEST',
    'Conflict: this stream is complete; its response came before Last-Event-ID',
  ),
} as const satisfies Record<string, RefusalSpec>;

export type RefusalCode = keyof typeof TRANSPORT_REFUSALS;

/** One refusal, its template filled: what a writer puts on the wire (http/write-refusal.ts). */
export interface Refusal {
  code: RefusalCode;
  status: number;
  classification: Classification;
  jsonRpcCode?: number;
  message: string;
  retryAfterSeconds?: number;
  headers: Record<string, string>;
}

const fill = (template: string, params: Readonly<Record<string, string | number>>) =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));

/** The refusal `code` names, with its message and headers filled from `params`. */
export function refusalOf(
  code: RefusalCode,
  params: Readonly<Record<string, string | number>> = {},
): Refusal {
  const spec: RefusalSpec = TRANSPORT_REFUSALS[code];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name] = fill(value, params);
  if (spec.retryAfterSeconds !== undefined) headers['Retry-After'] = String(spec.retryAfterSeconds);
  return {
    code,
    status: spec.status,
    classification: spec.classification,
    ...(spec.jsonRpcCode === undefined ? {} : { jsonRpcCode: spec.jsonRpcCode }),
    message: fill(spec.message, params),
    ...(spec.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: spec.retryAfterSeconds }),
    headers,
  };
}

/** The documented table's rows, one per refusal (what the docs test compares the page with). */
export function refusalTableRows(): string[][] {
  return Object.entries(TRANSPORT_REFUSALS).map(([code, spec]: [string, RefusalSpec]) => [
    `\`${code}\``,
    String(spec.status),
    spec.jsonRpcCode === undefined ? '' : String(spec.jsonRpcCode),
    `\`${spec.classification}\``,
    spec.retryAfterSeconds === undefined ? '' : String(spec.retryAfterSeconds),
    `${spec.message.replace(/\|/g, '\\|')}`,
  ]);
}
