/**
 * The MCP server over the curated operations. tools/list answers a list computed once; tools/call is
 * our own handler so an unknown tool is the JSON-RPC protocol error -32602 the spec asks for (the SDK's
 * McpServer would answer an isError result), and so every other outcome is a tool result.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Identity } from '../auth/identity.js';
import type { Logger } from '../logger.js';
import type { CuratedOperation } from '../operations/load-operations.js';
import { packageInfo } from '../package-info.js';
import { linkSignals } from './link-signals.js';
import type { ToolRunner } from './call-tool.js';

/** Read once at start-up: the version clients see is package.json's, as `moviedb-mcp --version` prints. */
export const SERVER_INFO = { name: 'moviedb-mcp', title: 'MovieDB', version: packageInfo().version };

const INSTRUCTIONS =
  'Movie catalogue tools. Read isError first, then structuredContent.data and structuredContent.errors. ' +
  'Each error has a classification: NOT_FOUND (the id does not exist: use searchMovies to find ids), ' +
  'BAD_REQUEST (fix the arguments; "already in your watch list" means done), UNAUTHORIZED (sign-in needed), ' +
  'FORBIDDEN (not allowed), TIMEOUT/UNAVAILABLE (retryable later), RATE_LIMITED (too many calls: wait ' +
  'extensions.retryAfterSeconds), INTERNAL_ERROR (report the reference).';

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

export function createMcpServer(deps: McpServerDependencies, requestSignal?: AbortSignal): Server {
  const byName = new Map(deps.operations.map((op) => [op.toolName, op]));
  const tools: Tool[] = deps.operations.map((op) => op.tool);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, logging: {} },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const operation = byName.get(request.params.name);
    if (!operation) {
      // A protocol error, not a tool result (SPEC section 6). A plain Error with a code keeps the message
      // free of the "MCP error -32602:" prefix McpError would add before the client adds its own.
      throw Object.assign(
        new Error(`Unknown tool: ${request.params.name}. Call tools/list for the available tools.`),
        {
          code: ErrorCode.InvalidParams,
        },
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const requestId = String(extra.requestId);
    // In stateless mode a cancellation arrives on a request of its own, through requestSignal.
    const cancellation = linkSignals(extra.signal, ...(requestSignal ? [requestSignal] : []));
    const { outcome: _outcome, ...result } = await deps
      .runTool({
        operation,
        args: request.params.arguments ?? {},
        viewer: identityOf(extra.authInfo),
        clientAddress: clientAddressOf(extra.authInfo),
        signal: cancellation.signal,
        requestId,
        // The HTTP request's logger carries its requestId, so audit lines join the access line.
        logger: (requestLoggerOf(extra.authInfo) ?? deps.logger).child({
          mcpRequestId: requestId,
          sessionId: extra.sessionId,
        }),
        sendProgress:
          progressToken === undefined
            ? undefined
            : (progress, total, message) =>
                extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, ...(total !== undefined ? { total } : {}), message },
                }),
      })
      .finally(() => cancellation.release());
    return result;
  });

  return server;
}
