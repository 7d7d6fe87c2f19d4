/**
 * The MCP server over the curated operations, one factory for both protocol eras (2025-era sessions and
 * stateless calls, 2026-07-28 per-request calls). tools/list answers the tools the caller can call (or
 * all of them, MCP_TOOLS_VISIBILITY=all), from lists computed once per catalogue and kind of caller;
 * tools/call is our own handler so an unknown tool is the JSON-RPC protocol error -32602 the spec asks
 * for (never an isError result), and so every other outcome is a tool result. A tool the list hides
 * from a caller is still a known tool: calling it answers exactly as the authorization rules say (an
 * insufficient_scope 403, or an UNAUTHORIZED or FORBIDDEN tool error), never "unknown tool".
 * Resources, prompts and completions (src/mcp/resources.ts, prompts.ts) are answered for the caller's
 * identity.
 *
 * It is an McpServer (the v2 SDK's supported server; the low-level Server is deprecated) whose two tool
 * handlers we install ourselves: McpServer's own ones would convert every schema on each tools/list and
 * validate arguments with their own messages, where ours are computed once and name the field.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  isInputRequiredResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type AuthInfo,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { Identity } from '../auth/identity.js';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import { requestRefusal } from '../limits/request-refusal.js';
import { METHOD_POINTS } from '../limits/request-weights.js';
import type { Logger } from '../logger.js';
import type { OperationCatalogue } from '../operations/operation-catalogue.js';
import { packageInfo } from '../package-info.js';
import { IDEMPOTENCY_KEY_META, type ToolRunner } from './tool-runner.js';
import {
  declaresFormElicitation,
  type ConfirmationChannel,
  type ConfirmationSigner,
} from './confirm-call.js';
import { withLegacyErrorCodes } from './legacy-error-codes.js';
import { linkSignals } from './link-signals.js';
import { toolFailure } from './to-call-tool-result.js';
import type { Prompts } from './prompts.js';
import type { Resources } from './resources.js';
import type { Elicit } from './session-elicitation.js';

/** Read once at start-up: the version clients see is package.json's, as `moviedb-mcp --version` prints. */
export const SERVER_INFO = { name: 'moviedb-mcp', title: 'MovieDB', version: packageInfo().version };

/** The 2025-era revisions a session or a stateless 2025 call may negotiate (docs/mcp.md, Protocol revisions). */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** The revision served without handshake or session, each request carrying its own `_meta`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * How long a 2026 client may cache tools/list (and server/discover). Without OPERATIONS_WATCH the list
 * is fixed for the life of the process and only a deploy changes it, so not much longer; with it, a
 * change must reach 2026 clients (which have no session to be notified on) within seconds.
 */
export const LIST_TTL_MS = 300_000;
export const WATCHED_LIST_TTL_MS = 5_000;

/** Who sees which tools in tools/list: only those the caller can call (the default), or all. */
type ToolsVisibility = 'caller' | 'all';

/**
 * What every tool shares, said once per connection rather than in each tool's schema: the result
 * envelope, each error's fields, what to do for each classification, and the catalogue's units.
 */
export const INSTRUCTIONS =
  'Movie catalogue tools. Read isError first, then structuredContent {data, errors}. Each error has ' +
  'message, path (null when it concerns the whole request), classification, retryable (true when the ' +
  'same call may succeed later) and maybe extensions. Classifications: NOT_FOUND (the id does not ' +
  'exist: find ids with searchMovies), BAD_REQUEST (fix the argument named by extensions.field), ' +
  'UNAUTHORIZED (sign-in needed), FORBIDDEN (not allowed: extensions.requiredRole or requiredScopes), ' +
  'TIMEOUT and UNAVAILABLE (retry later), RATE_LIMITED (wait extensions.retryAfterSeconds), ' +
  'INTERNAL_ERROR (report extensions.reference). Ratings are critic averages from 0 to 10; runtimes ' +
  'are in minutes; ids are strings. Write tools take an optional idempotencyKey (a UUID, say): a ' +
  'repeat with it within 24 h returns the first answer and writes nothing again. An answer cut to the ' +
  'size budget carries truncated {returned, total, nextArguments}: call again with nextArguments (it ' +
  'sets offset, the items to skip) for the rest. A tool that asks first answers with a ' +
  'confirmationToken; pass it back, same arguments, only once the user agreed.';

/**
 * One JSON Schema validator for every server instance: each instance would otherwise build its own, and
 * a server is created per session and per stateless or 2026 request. (The SDK uses it only for
 * elicitation results; our arguments are checked by the tool runner's own Ajv.)
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export interface McpServerDependencies {
  catalogue: OperationCatalogue;
  toolsVisibility: ToolsVisibility;
  runTool: ToolRunner;
  logger: Logger;
  /** Verifies the requestState of a 2026-07-28 confirmation round (src/mcp/confirm-call.ts). */
  confirmations: ConfirmationSigner;
  resources: Resources;
  prompts: Prompts;
  /**
   * The request limit: a tools/call is counted here, on every road to it (the other methods are counted
   * by the HTTP layer before a server exists, src/http/request-limit.ts); its execution is counted again
   * by the operation limit.
   */
  limits: Pick<AbuseLimits, 'admitRequest'>;
}

/** Which revision a server instance serves: 2025-era (sessions, stateless) or 2026-07-28 (per request). */
type ProtocolEra = 'legacy' | 'modern';

export interface McpServerOptions {
  /** A 2025 stateless cancellation, which arrives on a request of its own. */
  requestSignal?: AbortSignal;
  /**
   * Whether this server can tell its client that the list changed: only a 2025 session can (over its
   * standalone stream), and only while the catalogue is watched.
   */
  listChanged?: boolean;
  /** The revision this instance serves (2025-era unless said). */
  era?: ProtocolEra;
  /**
   * A 2025 session call whose client declared form elicitation: how to ask its user (on the call's
   * stream; the session layer routes the answer back, session-elicitation.ts).
   */
  elicit?: Elicit;
}

/** The identity our auth middleware put on the request, carried by the SDK as authInfo.extra. */
function identityOf(authInfo: AuthInfo | undefined): Identity | null {
  return (authInfo?.extra?.identity as Identity | undefined) ?? null;
}

/** The client address our HTTP layer put beside the identity (rate limits count anonymous calls by it). */
function clientAddressOf(authInfo: AuthInfo | undefined): string | undefined {
  const address = authInfo?.extra?.clientAddress;
  return typeof address === 'string' ? address : undefined;
}

/** The 2025 session a request belongs to, which our HTTP layer put beside the identity (served per request). */
function sessionIdOf(authInfo: AuthInfo | undefined): string | undefined {
  const id = authInfo?.extra?.sessionId;
  return typeof id === 'string' ? id : undefined;
}

/** The HTTP request's logger our HTTP layer put beside the identity: bound to its requestId. */
function requestLoggerOf(authInfo: AuthInfo | undefined): Logger | undefined {
  return authInfo?.extra?.logger as Logger | undefined;
}

/** Adds fields to the HTTP request's access line (src/http/request-context.ts), when there is one. */
function accessLineOf(
  authInfo: AuthInfo | undefined,
): ((fields: Record<string, unknown>) => boolean) | undefined {
  return authInfo?.extra?.annotate as ((fields: Record<string, unknown>) => boolean) | undefined;
}

/**
 * How a call's client can be asked to confirm: the input-required flow when it is a 2026-07-28 request
 * whose envelope declares form elicitation; elicitation/create when it is a call of a 2025 session whose
 * client declared it (the session layer hands this server `elicit` then); else two steps (confirm-call.ts).
 */
function confirmationChannel(
  era: ProtocolEra,
  ctx: ServerContext,
  elicit: Elicit | undefined,
  signal: AbortSignal,
): ConfirmationChannel {
  if (era !== 'modern') {
    return elicit
      ? { kind: 'elicitation', ask: (question) => elicit(question, signal) }
      : { kind: 'two-step' };
  }
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  if (!declaresFormElicitation(capabilities)) return { kind: 'two-step' };
  return {
    kind: 'input-required',
    state: ctx.mcpReq.requestState(),
    responses: ctx.mcpReq.inputResponses,
  };
}

/** The fields the resources and tools need from the request, beside the identity. */
function readerOf(ctx: ServerContext, deps: McpServerDependencies) {
  const authInfo = ctx.http?.authInfo;
  const requestId = String(ctx.mcpReq.id);
  return {
    viewer: identityOf(authInfo),
    clientAddress: clientAddressOf(authInfo),
    requestId,
    signal: ctx.mcpReq.signal,
    // The HTTP request's logger carries its requestId, so audit lines join the access line.
    logger: (requestLoggerOf(authInfo) ?? deps.logger).child({
      mcpRequestId: requestId,
      sessionId: ctx.sessionId,
    }),
  };
}

/** One tools/call as our handler sees it, from the SDK's context or from the lean path's own reading. */
export interface ToolCallRequest {
  params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: { progressToken?: string | number; [key: string]: unknown };
  };
  /** The JSON-RPC id (audit lines carry it). */
  id: string | number;
  authInfo: AuthInfo | undefined;
  sessionId?: string;
  /** Aborts the call: the client cancelled or went away. */
  signal: AbortSignal;
  /** How the client can be asked to confirm (confirm-call.ts). */
  confirmation: ConfirmationChannel;
  /** Sends a notifications/progress message (only asked for when the call has a progressToken). */
  notify?: (notification: {
    method: 'notifications/progress';
    params: Record<string, unknown>;
  }) => Promise<void>;
}

/**
 * Answers a tools/call: an unknown tool is the protocol error -32602 (docs/contract.md, MCP tools; never an isError
 * result); every other outcome is the tool's result, or the input-required question of a 2026-07-28
 * confirmation. The SDK's handler and the lean path (direct-tool-call.ts) both call this, so the two
 * cannot differ in what a call does.
 */
export async function callCuratedTool(
  deps: McpServerDependencies,
  call: ToolCallRequest,
): Promise<CallToolResult | InputRequiredResult> {
  const { params, authInfo } = call;
  const requestId = String(call.id);
  const sessionId = call.sessionId ?? sessionIdOf(authInfo);
  // The HTTP request's logger carries its requestId, which joins every line of the call to its access
  // line; the tool runner's own lines add the JSON-RPC id and session (no child logger per call).
  const logger = requestLoggerOf(authInfo) ?? deps.logger;
  // Before the name is looked up: a call of an unknown tool, or with bad arguments, costs its points too.
  const refused = await requestRefusal(
    deps.limits,
    { viewer: identityOf(authInfo), clientAddress: clientAddressOf(authInfo) },
    METHOD_POINTS['tools/call']!,
    logger,
  );
  if (refused) return toolFailure('RATE_LIMITED', refused.message, refused.extensions);
  // Looked up in the whole catalogue, whatever the caller's list shows.
  const operation = deps.catalogue.current().byName.get(params.name);
  if (!operation) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${params.name}. Call tools/list for the available tools.`,
    );
  }
  const progressToken = params._meta?.progressToken;
  const { notify } = call;
  const { result } = await deps.runTool({
    operation,
    args: params.arguments ?? {},
    viewer: identityOf(authInfo),
    clientAddress: clientAddressOf(authInfo),
    signal: call.signal,
    requestId,
    sessionId,
    logger,
    annotateAccessLine: accessLineOf(authInfo),
    metaIdempotencyKey: params._meta?.[IDEMPOTENCY_KEY_META],
    confirmation: call.confirmation,
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

export function createMcpServer(deps: McpServerDependencies, options: McpServerOptions = {}): McpServer {
  const { requestSignal, era = 'legacy', elicit } = options;
  const listTtlMs = deps.catalogue.watching ? WATCHED_LIST_TTL_MS : LIST_TTL_MS;
  const mcp = new McpServer(SERVER_INFO, {
    // No `logging`: nothing here sends log messages, and the 2026-07-28 revision deprecates it.
    capabilities: {
      tools: { listChanged: options.listChanged === true },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SHARED_VALIDATOR,
    // The 2026-era handshake is per request and needs no entry here; 2025 clients negotiate one of these.
    supportedProtocolVersions: LEGACY_PROTOCOL_VERSIONS,
    cacheHints: {
      // A list that depends on the caller must not be served to anyone else from a shared cache.
      'tools/list': {
        ttlMs: listTtlMs,
        cacheScope: deps.toolsVisibility === 'caller' ? 'private' : 'public',
      },
      'server/discover': { ttlMs: listTtlMs, cacheScope: 'public' },
      'prompts/list': { ttlMs: listTtlMs, cacheScope: 'public' },
      'resources/templates/list': { ttlMs: listTtlMs, cacheScope: 'public' },
      // Who asks decides whether the watch list is listed.
      'resources/list': { ttlMs: listTtlMs, cacheScope: 'private' },
    },
    // 2025 requests are never answered with input_required (confirm-call.ts): no server→client shim (a
    // session's elicitation is ours, session-elicitation.ts).
    inputRequired: { legacyShim: false },
    // A 2026-07-28 confirmation round's requestState is ours, signed: anything else is refused (-32602).
    requestState: { verify: (state) => deps.confirmations.verify(state) },
  });
  const { server } = mcp;
  if (era === 'legacy') {
    const connect = mcp.connect.bind(mcp);
    mcp.connect = (transport) => connect(withLegacyErrorCodes(transport));
  }

  server.setRequestHandler('tools/list', (_request, ctx) => {
    const catalogue = deps.catalogue.current();
    const tools =
      deps.toolsVisibility === 'all' ? catalogue.tools : catalogue.toolsFor(identityOf(ctx.http?.authInfo));
    // Shared, never copied: nothing downstream mutates a result.
    return { tools: tools as Tool[] };
  });

  server.setRequestHandler('resources/list', (_request, ctx) => ({
    resources: deps.resources.list(identityOf(ctx.http?.authInfo)),
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: deps.resources.templates(),
  }));
  server.setRequestHandler('resources/read', (request, ctx) =>
    deps.resources.read(request.params.uri, readerOf(ctx, deps)),
  );
  server.setRequestHandler('prompts/list', () => ({ prompts: deps.prompts.list() }));
  server.setRequestHandler('prompts/get', (request, ctx) =>
    deps.prompts.get(request.params.name, request.params.arguments, identityOf(ctx.http?.authInfo) !== null),
  );
  server.setRequestHandler('completion/complete', (request) =>
    deps.prompts.complete(request.params.ref, request.params.argument),
  );

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
      confirmation: confirmationChannel(era, ctx, elicit, cancellation.signal),
      notify: (notification) => ctx.mcpReq.notify(notification),
    }).finally(() => cancellation.release());
    if (isInputRequiredResult(result)) return result as unknown as CallToolResult;
    const operation = deps.catalogue.current().byName.get(request.params.name);
    return server.projectCallToolResult(result as CallToolResult, operation?.tool.outputSchema);
  });

  return mcp;
}
