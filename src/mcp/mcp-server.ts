/**
 * The MCP server over the curated operations, one factory for both protocol eras (2025-era sessions and
 * stateless calls, 2026-07-28 per-request calls). tools/list answers a list computed once; tools/call is
 * our own handler so an unknown tool is the JSON-RPC protocol error -32602 the spec asks for (never an
 * isError result), and so every other outcome is a tool result.
 *
 * It is an McpServer (the v2 SDK's supported server; the low-level Server is deprecated) whose two tool
 * handlers we install ourselves: McpServer's own ones would convert every schema on each tools/list and
 * validate arguments with their own messages, where ours are computed once and name the field.
 */
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Identity } from '../auth/identity.js';
import type { Logger } from '../logger.js';
import type { CuratedOperation } from '../operations/load-operations.js';
import { packageInfo } from '../package-info.js';
import { linkSignals } from './link-signals.js';
import type { ToolRunner } from './call-tool.js';

/** Read once at start-up: the version clients see is package.json's, as `moviedb-mcp --version` prints. */
export const SERVER_INFO = { name: 'moviedb-mcp', title: 'MovieDB', version: packageInfo().version };

/** The 2025-era revisions a session or a stateless 2025 call may negotiate (SPEC section 6). */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** The revision served without handshake or session, each request carrying its own `_meta`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * How long a 2026 client may cache tools/list (and server/discover). The list is fixed for the life of
 * the process, identical for every caller (hence public); a deploy can change it, so not much longer.
 */
export const LIST_TTL_MS = 300_000;

const INSTRUCTIONS =
  'Movie catalogue tools. Read isError first, then structuredContent.data and structuredContent.errors. ' +
  'Each error has a classification: NOT_FOUND (the id does not exist: use searchMovies to find ids), ' +
  'BAD_REQUEST (fix the arguments; "already in your watch list" means done), UNAUTHORIZED (sign-in needed), ' +
  'FORBIDDEN (not allowed), TIMEOUT/UNAVAILABLE (retryable later), RATE_LIMITED (too many calls: wait ' +
  'extensions.retryAfterSeconds), INTERNAL_ERROR (report the reference).';

/**
 * One JSON Schema validator for every server instance: each instance would otherwise build its own, and
 * a server is created per session and per stateless or 2026 request. (The SDK uses it only for
 * elicitation, which these tools never send; our arguments are checked by the tool runner's own Ajv.)
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export interface McpServerDependencies {
  operations: readonly CuratedOperation[];
  runTool: ToolRunner;
  logger: Logger;
}

/** The identity our auth middleware put on the request, carried by the SDK as authInfo.extra. */
export function identityOf(authInfo: AuthInfo | undefined): Identity | null {
  return (authInfo?.extra?.identity as Identity | undefined) ?? null;
}

/** The client address our HTTP layer put beside the identity (rate limits count anonymous calls by it). */
function clientAddressOf(authInfo: AuthInfo | undefined): string | undefined {
  const address = authInfo?.extra?.clientAddress;
  return typeof address === 'string' ? address : undefined;
}

/** The HTTP request's logger our HTTP layer put beside the identity: bound to its requestId. */
function requestLoggerOf(authInfo: AuthInfo | undefined): Logger | undefined {
  return authInfo?.extra?.logger as Logger | undefined;
}

/** Computed once per operations list: the tools/list answer and the lookup by name. */
const catalogues = new WeakMap<
  readonly CuratedOperation[],
  { tools: Tool[]; byName: Map<string, CuratedOperation> }
>();

function catalogueOf(operations: readonly CuratedOperation[]) {
  let catalogue = catalogues.get(operations);
  if (!catalogue) {
    catalogue = {
      tools: operations.map((op) => op.tool),
      byName: new Map(operations.map((op) => [op.toolName, op])),
    };
    catalogues.set(operations, catalogue);
  }
  return catalogue;
}

/** One tools/call as our handler sees it, from the SDK's context or from the lean path's own reading. */
export interface ToolCallRequest {
  params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: { progressToken?: string | number };
  };
  /** The JSON-RPC id (audit lines carry it). */
  id: string | number;
  authInfo: AuthInfo | undefined;
  sessionId?: string;
  /** Aborts the call: the client cancelled or went away. */
  signal: AbortSignal;
  /** Sends a notifications/progress message (only asked for when the call has a progressToken). */
  notify?: (notification: {
    method: 'notifications/progress';
    params: Record<string, unknown>;
  }) => Promise<void>;
}

/**
 * Answers a tools/call: an unknown tool is the protocol error -32602 (SPEC section 6, never an isError
 * result); every other outcome is the tool's result. The SDK's handler and the lean path
 * (direct-tool-call.ts) both call this, so the two cannot differ in what a call does.
 */
export async function callCuratedTool(
  deps: McpServerDependencies,
  call: ToolCallRequest,
): Promise<CallToolResult> {
  const { params, authInfo } = call;
  const operation = catalogueOf(deps.operations).byName.get(params.name);
  if (!operation) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${params.name}. Call tools/list for the available tools.`,
    );
  }
  const progressToken = params._meta?.progressToken;
  const requestId = String(call.id);
  const { notify } = call;
  const { result } = await deps.runTool({
    operation,
    args: params.arguments ?? {},
    viewer: identityOf(authInfo),
    clientAddress: clientAddressOf(authInfo),
    signal: call.signal,
    requestId,
    // The HTTP request's logger carries its requestId, so audit lines join the access line.
    logger: (requestLoggerOf(authInfo) ?? deps.logger).child({
      mcpRequestId: requestId,
      sessionId: call.sessionId,
    }),
    sendProgress:
      progressToken === undefined || !notify
        ? undefined
        : (progress, total, message) =>
            notify({
              method: 'notifications/progress',
              params: { progressToken, progress, ...(total !== undefined ? { total } : {}), message },
            }),
  });
  return result;
}

export function createMcpServer(deps: McpServerDependencies, requestSignal?: AbortSignal): McpServer {
  const { tools } = catalogueOf(deps.operations);
  const mcp = new McpServer(SERVER_INFO, {
    // No `logging`: nothing here sends log messages, and the 2026-07-28 revision deprecates it.
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SHARED_VALIDATOR,
    // The 2026-era handshake is per request and needs no entry here; 2025 clients negotiate one of these.
    supportedProtocolVersions: LEGACY_PROTOCOL_VERSIONS,
    cacheHints: {
      'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
      'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
    },
  });
  const { server } = mcp;

  server.setRequestHandler('tools/list', () => ({ tools }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    // A 2025 stateless cancellation arrives on a request of its own, through requestSignal; a 2026
    // client cancels by closing its request, which aborts ctx.mcpReq.signal.
    const cancellation = linkSignals(ctx.mcpReq.signal, ...(requestSignal ? [requestSignal] : []));
    const result = await callCuratedTool(deps, {
      params: request.params,
      id: ctx.mcpReq.id,
      authInfo: ctx.http?.authInfo,
      sessionId: ctx.sessionId,
      signal: cancellation.signal,
      notify: (notification) => ctx.mcpReq.notify(notification),
    }).finally(() => cancellation.release());
    const operation = catalogueOf(deps.operations).byName.get(request.params.name);
    return server.projectCallToolResult(result, operation?.tool.outputSchema);
  });

  return mcp;
}
