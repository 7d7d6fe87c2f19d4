/**
 * The Streamable HTTP endpoint /mcp (SPEC section 6) on Express, around the SDK's transports. Our layer
 * adds what the SDK leaves out or gets differently from the spec: Origin and Host checks (403), our
 * protocol revisions only (400), JSON-RPC errors instead of HTML for bad bodies (-32700), no batches,
 * 405 with Allow for other methods, -32602 for malformed or over-deep params, sessions bound to their
 * creator and capped per principal (429) and in total (least recently used idle one evicted, else 503),
 * bearer auth with RFC 9728 discovery, cancellation wherever the call runs, and resumable call streams.
 * Sessions are records in the shared state (src/shared-state: in the process, or in Redis so that any
 * replica serves any request), every request answered by a fresh server and transport. After these
 * guards a 2026-07-28 request goes to the SDK's per-request handler and a 2025-era one to the session or
 * stateless handling here (route-by-era.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type AuthInfo } from '@modelcontextprotocol/server';
import type { BearerVerifier } from '../auth/bearer.js';
import { ALL_SCOPES, type Identity } from '../auth/identity.js';
import { isLoopbackHost, LOOPBACK_NAMES, type Config } from '../config.js';
import {
  createMcpServer,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  type McpServerDependencies,
} from '../mcp/mcp-server.js';
import { checkRequestParams, hasEnvelopeClaim, nestsDeeperThan } from '../mcp/check-request-params.js';
import { CallTransport } from '../mcp/call-transport.js';
import { asksByElicitation } from '../mcp/confirm-call.js';
import { createSessionElicitation, type Elicit } from '../mcp/session-elicitation.js';
import { callKey } from '../shared-state/cancellation-bus.js';
import { followStream, isResponseTo } from '../shared-state/event-store.js';
import { principalOf, type SessionHold, type SessionRecord } from '../shared-state/session-store.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { bearerOf, type BearerOutcome } from './authenticate.js';
import { carryRequestLocals } from './carry-request-locals.js';
import { BODY_ERRORS } from './error-handlers.js';
import { insufficientScope, scopeRefusal } from './insufficient-scope.js';
import { createHostCheck, refuseForeignHosts } from './allowed-hosts.js';
import { directToolCalls, type DirectToolCalls, type McpRequest } from './direct-tool-calls.js';
import { frontWorkOf, type SessionOutcome } from './front-handoff.js';
import { localsOf, type RequestLocals, type ResponseWithLocals } from './locals.js';
import { readBody } from './read-body.js';
import { routeByEra, type McpPostHandler } from './route-by-era.js';
import { sendJsonRpcError, type JsonRpcErrorOptions } from './send-json-rpc-error.js';
import { sessionToolCalls } from './session-tool-call.js';
import { KEEPALIVE_FRAME, messageFrame, SSE_HEADERS } from './sse-frames.js';

/**
 * The revisions this server speaks: 2026-07-28 (no sessions), 2025-11-25 and 2025-06-18 (SPEC), plus
 * 2025-03-26, whose transport is the same Streamable HTTP and which the official conformance suite still
 * sends on some requests.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

export interface McpRouteOptions {
  mcp: Config['mcp'];
  listenHost: string;
  bodyLimitBytes: number;
  verifier: BearerVerifier;
  server: McpServerDependencies;
  /**
   * 2025-era sessions, their resumable streams, cancellations and answers to their questions: in this
   * process, or in Redis.
   */
  state: SharedState;
  oauthIssuer?: string;
}

/** The canonical base URL: configured, or as the request reached us. */
function baseUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export function mcpRoutes(options: McpRouteOptions): McpRoutes {
  const router = Router();
  const { mcp } = options;
  const loopbackBind = isLoopbackHost(options.listenHost);
  const publicOrigin = mcp.publicUrl ? new URL(mcp.publicUrl) : undefined;
  // Never "any Host": config refuses a public bind without PUBLIC_URL or MCP_ALLOWED_HOSTS.
  const hostCheck = createHostCheck(mcp, options.listenHost);
  // Origins a browser may call from. The request's own Host is never one of them: a DNS-rebinding
  // page controls it.
  const allowedOrigins = new Set([...mcp.allowedOrigins, ...(publicOrigin ? [publicOrigin.origin] : [])]);

  const metadataUrl = (req: Request) =>
    `${baseUrl(req, mcp.publicUrl)}/.well-known/oauth-protected-resource/mcp`;

  // RFC 9728: where a client learns which authorization server issues tokens for this resource.
  const metadata: RequestHandler = (req, res) => {
    const base = baseUrl(req, mcp.publicUrl);
    res.json({
      resource: `${base}/mcp`,
      authorization_servers: options.oauthIssuer ? [options.oauthIssuer] : [],
      scopes_supported: ALL_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'MovieDB MCP',
    });
  };
  // Without PUBLIC_URL the metadata names the resource after the request's Host: only a Host of ours may
  // be named (a foreign one would be reflected as the resource clients are told to get tokens for).
  const ourHostOnly = refuseForeignHosts(hostCheck);
  router.get('/.well-known/oauth-protected-resource', ourHostOnly, metadata);
  router.get('/.well-known/oauth-protected-resource/mcp', ourHostOnly, metadata);

  /** DNS-rebinding protection: the Host must be ours and a browser Origin must be allowed. */
  const originRefusal = (host: string, origin: string | undefined): string | undefined => {
    const hostname = hostCheck.hostnameOf(host);
    if (!hostCheck.allows(host)) return `Forbidden: Host ${host} is not allowed`;
    if (origin === undefined) return undefined;
    let originName = '';
    let normalized = '';
    try {
      ({ hostname: originName, origin: normalized } = new URL(origin));
    } catch {
      return 'Forbidden: malformed Origin';
    }
    const allowed =
      allowedOrigins.has(origin) ||
      allowedOrigins.has(normalized) ||
      (loopbackBind && LOOPBACK_NAMES.includes(originName) && LOOPBACK_NAMES.includes(hostname));
    return allowed ? undefined : `Forbidden: Origin ${origin} is not allowed`;
  };
  const guardOriginAndHost: RequestHandler = (req, res, next) => {
    const refusal = originRefusal(req.get('host') ?? '', req.get('origin'));
    if (refusal) return sendJsonRpcError(res, 403, -32000, refusal);
    next();
  };

  const onlyKnownMethods: RequestHandler = (req, res, next) => {
    const allowed = mcp.mode === 'sessions' ? ['GET', 'POST', 'DELETE'] : ['POST'];
    if (!allowed.includes(req.method)) {
      return sendJsonRpcError(res, 405, -32000, `Method ${req.method} is not allowed on /mcp`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    next();
  };

  const refuseVersion = (res: Response, version: string) => sendJsonRpcError(res, ...versionRefusal(version));

  const checkProtocolVersion: RequestHandler = (req, res, next) => {
    const version = req.get('mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      // A POST may be a 2026-07-28 request, whose answer is the SDK's UnsupportedProtocolVersionError
      // (with the request's id and the versions it serves): parseBody decides once the body is read.
      if (req.method !== 'POST') return refuseVersion(res, version);
      res.locals.unsupportedVersion = version;
    }
    next();
  };

  /** Whether a bearer outcome lets a request on (the refusals are `authenticate`'s to answer). */
  const admits = (outcome: BearerOutcome) =>
    outcome.kind === 'verified' || (outcome.kind === 'absent' && mcp.auth !== 'required');

  /** Verifies the bearer token on every request; the identity (never the token) goes on as authInfo. */
  const authenticate: RequestHandler = async (req, res, next) => {
    const challenge = (extra: string) => ({
      'WWW-Authenticate': `Bearer ${extra}resource_metadata="${metadataUrl(req)}"`,
    });
    let outcome: BearerOutcome;
    try {
      outcome = await bearerOf(req, options.verifier);
    } catch (error) {
      return next(error);
    }
    if (outcome.kind === 'absent') {
      if (!admits(outcome))
        return sendJsonRpcError(res, 401, -32001, 'Unauthorized: a bearer token is required', {
          headers: challenge(''),
        });
      return next();
    }
    if (outcome.kind === 'invalid') {
      return sendJsonRpcError(res, 401, -32001, `Unauthorized: ${outcome.reason}`, {
        headers: challenge('error="invalid_token", '),
      });
    }
    admitIdentity(req, localsOf(res), outcome.identity);
    next();
  };

  /** Reads the JSON-RPC body ourselves: JSON errors become -32700 and batches are refused. */
  const parseBody: RequestHandler = (req, res, next) => {
    const parsed = parseJsonRpcBody(
      typeof req.body === 'string' ? req.body : '',
      Boolean(req.is('application/json')),
      res.locals.unsupportedVersion as string | undefined,
      mcp.maxArgumentDepth,
    );
    if ('refusal' in parsed) return sendJsonRpcError(res, ...parsed.refusal);
    res.locals.message = parsed.message;
    next();
  };

  const subjectOf = (res: ResponseWithLocals) => localsOf(res).viewer?.subject ?? null;
  const principal = (res: ResponseWithLocals) => principalOf(subjectOf(res), localsOf(res).clientAddress);

  const bodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      return sendJsonRpcError(res, 413, -32600, 'Invalid Request: the body is too large');
    const known = typeof type === 'string' ? BODY_ERRORS[type] : undefined;
    if (known)
      return sendJsonRpcError(res, known.status, known.status === 400 ? -32700 : -32000, known.message);
    if (typeof type === 'string' && type.startsWith('entity.'))
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the body could not be read');
    next(error);
  };

  router.all('/mcp', guardOriginAndHost, onlyKnownMethods, checkProtocolVersion, authenticate);
  router.all('/mcp', carryRequestLocals);
  const body = readBody(options.bodyLimitBytes);
  const scopeCheck = insufficientScope(options.server.catalogue, metadataUrl);
  const direct = directToolCalls(options.server, mcp.directToolCalls);
  let post: McpPostHandler;
  let sessionCalls: McpFront['sessionCalls'];
  if (mcp.mode === 'sessions') {
    const handle = sessionHandlers(options, subjectOf, principal);
    sessionCalls = handle.front;
    // Express's request, always: the front hands every 2025-era POST of session mode it does not answer
    // (only plain tools/calls it answers, through handle.front) to Express.
    post = routeByEra(handle.post as unknown as McpPostHandler, options.server, direct);
    router.post('/mcp', body, parseBody, scopeCheck, post);
    router.get('/mcp', handle.get);
    router.delete('/mcp', handle.remove);
  } else {
    post = routeByEra(statelessPost(options, principal, direct), options.server, direct);
    router.post('/mcp', body, parseBody, scopeCheck, post);
  }
  router.use('/mcp', bodyErrors);
  return {
    router,
    front: {
      originRefusal,
      admits,
      admitIdentity,
      parse: (text) => parseJsonRpcBody(text, true, undefined, mcp.maxArgumentDepth),
      scopeRefusal: (viewer, message) => scopeRefusal(options.server.catalogue, viewer, message),
      post,
      sessionCalls,
    },
  };
}

/**
 * The /mcp guards as plain functions, for the node:http front (front.ts): the same code the Express
 * chain above runs. The front answers only what they let through and hands every refusal to Express.
 */
export interface McpFront {
  /** The Host/Origin refusal (DNS rebinding) for these headers, or undefined. */
  originRefusal(host: string, origin: string | undefined): string | undefined;
  admits(outcome: BearerOutcome): boolean;
  /** Puts a verified identity on the request (locals.viewer, and `req.auth` for the SDK). */
  admitIdentity(req: IncomingMessage & { auth?: AuthInfo }, locals: RequestLocals, identity: Identity): void;
  /** parseBody's checks of a UTF-8 JSON body. */
  parse(text: string): ParsedBody;
  scopeRefusal(viewer: Identity | null, message: object): ReturnType<typeof scopeRefusal>;
  /** The POST handler after the guards. */
  post: McpPostHandler;
  /** Session mode: a 2025 session's plain tools/call, answered by the session steps Express's POST runs. */
  sessionCalls?: SessionCalls;
}

/** The session steps of a POST for the front: what it may answer, and the answering. */
export interface SessionCalls {
  /** Whether the POST may be a plain tools/call the lean path answers (judged before any store access). */
  mayTake(req: McpRequest, message: unknown): boolean;
  /**
   * Runs the session steps (lookup, owner check, hold, the lean call) as Express's POST does. Resolves
   * undefined once answered, else with the lookup for Express to go on from: a refusal, or a session found
   * and held whose call is not the lean path's (a tool asking by elicitation).
   */
  post(
    req: McpRequest,
    res: ResponseWithLocals,
    message: unknown,
    sessionId: string,
  ): Promise<SessionOutcome | undefined>;
}

export interface McpRoutes {
  router: Router;
  front: McpFront;
}

/** The identity (never the token) goes on as authInfo, which the SDK hands to tool handlers. */
function admitIdentity(
  req: IncomingMessage & { auth?: AuthInfo },
  locals: RequestLocals,
  identity: Identity,
): void {
  locals.viewer = identity;
  req.auth = {
    // The SDK wants a token string; it gets a placeholder so the raw token goes no further than here.
    token: 'verified',
    clientId: identity.subject,
    scopes: [...identity.scopes],
    expiresAt: identity.expiresAt,
    extra: { identity },
  };
}

type ParsedBody =
  | { message: object }
  | { refusal: [status: number, code: number, message: string, options?: JsonRpcErrorOptions] };

const versionRefusal = (version: string): [number, number, string] => [
  400,
  -32000,
  `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
];

/**
 * The JSON-RPC checks of a POST body: JSON errors are -32700, batches and non-objects -32600, a request
 * with malformed or over-deep params -32602, and an unsupported MCP-Protocol-Version header refused
 * unless the body claims a 2026-07-28 envelope (the SDK answers that one).
 */
function parseJsonRpcBody(
  text: string,
  isJson: boolean,
  unsupportedVersion: string | undefined,
  maxDepth: number,
): ParsedBody {
  if (!isJson) {
    return { refusal: [415, -32000, 'Unsupported Media Type: Content-Type must be application/json'] };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { refusal: [400, -32700, 'Parse error: the body is not valid JSON'] };
  }
  if (Array.isArray(message)) {
    return {
      refusal: [
        400,
        -32600,
        'Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18)',
      ],
    };
  }
  if (typeof message !== 'object' || message === null) {
    return { refusal: [400, -32600, 'Invalid Request: the body must be a JSON-RPC message object'] };
  }
  if (unsupportedVersion !== undefined && !hasEnvelopeClaim(message)) {
    return { refusal: versionRefusal(unsupportedVersion) };
  }
  const { id, method } = message as { id?: unknown; method?: unknown };
  if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') {
    const problem = checkRequestParams(message, maxDepth);
    // A request's error is a JSON-RPC response to it: HTTP 200, the request's id.
    if (problem) return { refusal: [200, -32602, problem, { id }] };
  }
  // Anything else nested that deep (a response's result, a notification's params) would overflow the
  // SDK's parser, whose error names the overflow.
  if (nestsDeeperThan(message, maxDepth + 2)) {
    return {
      refusal: [400, -32600, `Invalid Request: the message is nested deeper than ${maxDepth} levels`],
    };
  }
  // A client asking for a revision we do not speak is answered with ours (the spec's negotiation);
  // 2026-07-28 has no initialize, so a handshake always lands on a 2025 revision.
  // The method first: the SDK's guard parses the whole message with zod, on every request otherwise.
  if (
    (message as { method?: unknown }).method === 'initialize' &&
    isInitializeRequest(message) &&
    !LEGACY_PROTOCOL_VERSIONS.includes(message.params.protocolVersion)
  ) {
    message.params.protocolVersion = LEGACY_PROTOCOL_VERSIONS[0]!;
  }
  return { message };
}

type SubjectOf = (res: ResponseWithLocals) => string | null;
type PrincipalFor = (res: ResponseWithLocals) => string;
type JsonRpcMessage = {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
};

const TOOL_LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
/** A client whose stream was cut reconnects after this (the SSE `retry` field of the priming event). */
const RETRY_INTERVAL_MS = 1000;
/** SSE comments on open streams, so idle proxies keep them (the SDK's interval). */
const KEEPALIVE_MS = 15_000;

function isCancellation(message: JsonRpcMessage): boolean {
  return message.method === 'notifications/cancelled' && message.id === undefined;
}

/** A JSON-RPC response the client POSTs: its answer to a request of ours (elicitation/create). */
function isClientResponse(message: JsonRpcMessage): boolean {
  return message.method === undefined && ('result' in message || 'error' in message);
}

/** What is wrong with a response the client POSTed, if anything (JSON-RPC 2.0, section 5). */
function responseProblem(
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

/** Session state (Redis) failed: a clear, retryable refusal; never a local session the others cannot see. */
function sessionStateUnavailable(res: Response, error: unknown): void {
  localsOf(res).logger.warn({ err: error }, 'MCP session state unavailable');
  sendJsonRpcError(
    res,
    503,
    -32000,
    'Service Unavailable: MCP session state is unavailable right now; retry shortly. The 2026-07-28 ' +
      'revision and stateless mode need no session state.',
    {
      headers: { 'Retry-After': '5' },
      data: { classification: 'UNAVAILABLE', retryable: true, retryAfterSeconds: 5 },
    },
  );
}

/** Puts what a tool call's logs should name beside the identity the SDK hands to handlers. */
function carrySessionId(req: McpRequest, sessionId: string): void {
  const { auth } = req;
  if (auth) auth.extra = { ...auth.extra, sessionId };
}

/**
 * Session mode, served per request: a session is a record in the session store (this process's, or
 * Redis's), and every request on it is answered by a fresh server and transport, exactly like stateless
 * mode, so any replica can serve it. A tools/call's stream is resumable (its events go to the event
 * store, the client reconnects with Last-Event-ID); its call runs to the end even if the stream is cut.
 */
function sessionHandlers(options: McpRouteOptions, subjectOf: SubjectOf, principalFor: PrincipalFor) {
  const { sessions, events, cancellations } = options.state;
  const elicitation = createSessionElicitation(options.state.answers, options.mcp.elicitationTimeoutMs);
  const leanCall = sessionToolCalls(options.server, options.state, {
    enabled: options.mcp.directToolCalls,
    retryIntervalMs: RETRY_INTERVAL_MS,
    keepaliveMs: KEEPALIVE_MS,
  });
  /** The standalone GET stream of each session, on this replica (one at most, as the SDK allows). */
  const listening = new Map<string, Response>();
  sessions.onClosed((id) => {
    listening.get(id)?.end();
    elicitation.endSession(id);
  });
  // A reloaded catalogue (OPERATIONS_WATCH) is announced on the standalone streams this replica holds;
  // every replica watches its own files. 2026 clients re-read the list when its ttlMs runs out.
  options.server.catalogue.onCatalogueChanged((next, previous) => {
    if (JSON.stringify(next.tools) === JSON.stringify(previous.tools)) return;
    const event = messageFrame(JSON.stringify(TOOL_LIST_CHANGED));
    for (const res of listening.values()) res.write(event);
  });

  const initialize = async (req: Request, res: Response, message: JsonRpcMessage) => {
    const params = message.params as { protocolVersion: string; capabilities?: object; clientInfo?: object };
    // The id is chosen here so that the cap decision and the record are one atomic step in the store;
    // the SDK's transport then hands it to the client as Mcp-Session-Id.
    const id = randomUUID();
    let opened: Awaited<ReturnType<typeof sessions.open>>;
    try {
      opened = await sessions.open({
        id,
        owner: subjectOf(res),
        principal: principalFor(res),
        protocolVersion: params.protocolVersion,
        clientCapabilities: { ...params.capabilities },
        clientInfo: { ...params.clientInfo },
      });
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if ('refusal' in opened) {
      if (opened.refusal === 'principal-cap') {
        return sendJsonRpcError(
          res,
          429,
          -32000,
          'Too Many Requests: this client holds as many sessions as it may, each with a request in flight; end one with DELETE or reuse it',
          {
            headers: { 'Retry-After': '10' },
            data: { classification: 'RATE_LIMITED', retryAfterSeconds: 10 },
          },
        );
      }
      return sendJsonRpcError(
        res,
        503,
        -32000,
        'Service Unavailable: too many sessions are busy; try again later',
        {
          headers: { 'Retry-After': '30' },
          data: { classification: 'UNAVAILABLE', retryAfterSeconds: 30 },
        },
      );
    }
    const { hold } = opened;
    carrySessionId(req, id);
    const server = createMcpServer(options.server, { listChanged: options.server.catalogue.watching });
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    res.on('close', () => {
      hold.release();
      // The transport refused the initialize (a wrong Accept, say): no session came of it.
      if (transport.sessionId === undefined) void sessions.discard(id).catch(() => undefined);
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };

  const serve = async (
    req: McpRequest,
    res: ServerResponse,
    message: JsonRpcMessage,
    record: SessionRecord,
    hold: SessionHold,
  ) => {
    const sessionId = record.id;
    carrySessionId(req, sessionId);
    const requestId = message.id;
    const call =
      message.method === 'tools/call' && requestId !== undefined
        ? events.forCall(
            { sessionId, requestId, method: message.method },
            () => !res.writableEnded && !res.destroyed,
          )
        : undefined;
    // A tool that asks first, called by a client that declared elicitation: its user is asked on this
    // call's stream (the rule a lean path for session calls must keep: such a call is served here).
    const tool = call && options.server.catalogue.current().byName.get(String(message.params?.name));
    const elicit: Elicit | undefined =
      call && asksByElicitation(tool, record.clientCapabilities)
        ? elicitation.forCall(sessionId, (sent) => transport.send(sent, { relatedRequestId: requestId }))
        : undefined;
    const server = createMcpServer(options.server, {
      listChanged: options.server.catalogue.watching,
      elicit,
    });
    let unregister = () => undefined as void;
    let finished = false;
    let responded = false;
    let closed = false;
    const releaseWhenDone = () => {
      if (finished && closed) hold.release();
    };
    // The end of the request's life: its response went out, or it was cancelled, or (not a call) its
    // connection closed. Closing the server aborts a handler still running.
    const finish = () => {
      if (finished) return;
      finished = true;
      unregister();
      call?.finish();
      void server.close();
      releaseWhenDone();
    };
    const transport = new CallTransport(
      {
        sessionIdGenerator: undefined,
        eventStore: call,
        retryInterval: call ? RETRY_INTERVAL_MS : undefined,
      },
      (sent) => {
        if (requestId === undefined || !isResponseTo(sent, requestId)) return;
        responded = true;
        finish();
      },
    );
    if (requestId !== undefined) unregister = cancellations.register(callKey(sessionId, requestId), finish);
    res.on('close', () => {
      closed = true;
      // A cut stream is not a cancellation (2025-11-25): a call runs on and its response is stored.
      if (!call) finish();
      // Its response written out in full, the stream was not cut: nothing of it will be asked for.
      else if (responded && res.writableFinished) call.forget();
      releaseWhenDone();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };

  /** The session a POST names, found, checked against its owner and held; looked up once per request. */
  const lookUp = async (
    req: McpRequest,
    res: ResponseWithLocals,
    sessionId: string,
  ): Promise<SessionOutcome> => {
    // The front went this far already and handed the request on.
    const handed = frontWorkOf(req)?.session;
    if (handed) return handed;
    try {
      return (await sessions.use(sessionId, subjectOf(res))) ?? { refusal: 'unknown' };
    } catch (error) {
      return { refusal: 'unavailable', error };
    }
  };

  /**
   * A POST naming a session, on node's request and response: Express's `post` runs it, and so does the
   * front (front.ts) for a call that may be a plain tools/call (`leanOnly`). It looks the session up,
   * answers a cancellation or a client's response, a plain tools/call on the lean path and anything else
   * through the SDK. What it resolves with is Express's to answer: a refusal, or (`leanOnly`) the session
   * found and held for a call the lean path does not take.
   */
  const postOnSession = async (
    req: McpRequest,
    res: ResponseWithLocals,
    message: JsonRpcMessage,
    sessionId: string,
    leanOnly: boolean,
  ): Promise<SessionOutcome | undefined> => {
    const found = await lookUp(req, res, sessionId);
    if ('refusal' in found) return found;
    const { record, hold } = found;
    if (isCancellation(message)) {
      // Only a call of this session (whose owner this caller is) can be named: the key holds the session.
      cancellations.cancel(callKey(sessionId, message.params?.requestId));
      hold.release();
      res.statusCode = 202;
      res.end();
      return;
    }
    if (isClientResponse(message)) {
      hold.release();
      const problem = responseProblem(message);
      if (problem) return { refusal: 'invalid-response', problem };
      // Likewise only a question of this session can be answered. An answer to none (unknown, already
      // answered, settled, another session's) is accepted and dropped, as the transport spec allows.
      const answer = message as {
        id: unknown;
        result?: Record<string, unknown>;
        error?: { message?: unknown };
      };
      elicitation.answer(
        sessionId,
        answer.id,
        answer.result
          ? { result: answer.result }
          : { error: String(answer.error?.message ?? '').slice(0, 200) },
      );
      res.statusCode = 202;
      res.end();
      return;
    }
    // The SDK reads the revision from this header (for instance to decide on the priming event).
    req.headers['mcp-protocol-version'] ??= record.protocolVersion;
    if (await leanCall.answer({ req, res, message, sessionId, record, hold })) return;
    if (leanOnly) return found;
    await serve(req, res, message, record, hold);
  };

  const post: RequestHandler = async (req, res, next) => {
    try {
      const message = res.locals.message as JsonRpcMessage;
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      if (sessionId === undefined) {
        if (!isInitializeRequest(message)) {
          return sendJsonRpcError(
            res,
            400,
            -32000,
            'Bad Request: Mcp-Session-Id header is required (send initialize first)',
          );
        }
        return await initialize(req, res, message);
      }
      const left = await postOnSession(req, res, message, sessionId, false);
      if (left === undefined || !('refusal' in left)) return;
      if (left.refusal === 'unavailable') return sessionStateUnavailable(res, left.error);
      if (left.refusal === 'unknown')
        return sendJsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize');
      sendJsonRpcError(res, 400, -32600, `Invalid Request: ${left.problem}`);
    } catch (error) {
      next(error);
    }
  };

  /** For the front: a call it may answer goes through the same session steps, only the lean call answered. */
  const front: SessionCalls = {
    mayTake: leanCall.mayTake,
    post: (req, res, message, sessionId) =>
      postOnSession(req, res, message as JsonRpcMessage, sessionId, true),
  };

  /** A Last-Event-ID resume: replay what the cut stream missed, then follow it to its response. */
  const resume = async (res: Response, sessionId: string, lastEventId: string, hold: SessionHold) => {
    const parsed = events.parseEventId(lastEventId);
    let info = undefined as Awaited<ReturnType<typeof events.info>>;
    try {
      if (parsed) info = await events.info(parsed.streamId);
    } catch (error) {
      hold.release();
      return sessionStateUnavailable(res, error);
    }
    if (!parsed || !info || info.sessionId !== sessionId) {
      hold.release();
      return sendJsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: Last-Event-ID names no resumable stream of this session (malformed, unknown, expired, or another session’s)',
      );
    }
    const gone = new AbortController();
    let keepalive: NodeJS.Timeout | undefined;
    res.on('close', () => {
      gone.abort();
      clearInterval(keepalive);
      hold.release();
    });
    try {
      const outcome = await followStream(
        events,
        { id: parsed.streamId, after: parsed.position, info },
        {
          open() {
            res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
            res.flushHeaders();
            keepalive = setInterval(() => res.write(KEEPALIVE_FRAME), KEEPALIVE_MS);
          },
          send({ id, message }) {
            res.write(messageFrame(JSON.stringify(message), id));
          },
        },
        gone.signal,
      );
      if (outcome === 'complete') {
        return sendJsonRpcError(
          res,
          409,
          -32000,
          'Conflict: this stream is complete; its response came before Last-Event-ID',
        );
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) return sessionStateUnavailable(res, error);
      localsOf(res).logger.warn({ err: error }, 'following a resumed MCP stream failed');
      res.end();
    }
  };

  /** The standalone GET stream: keepalives and tools/list_changed; it ends with its session. */
  const listen = (res: Response, sessionId: string, hold: SessionHold) => {
    if (listening.has(sessionId)) {
      hold.release();
      return sendJsonRpcError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    }
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
    res.flushHeaders();
    listening.set(sessionId, res);
    const keepalive = setInterval(() => res.write(KEEPALIVE_FRAME), KEEPALIVE_MS);
    res.on('close', () => {
      clearInterval(keepalive);
      if (listening.get(sessionId) === res) listening.delete(sessionId);
      hold.release();
    });
  };

  const get: RequestHandler = async (req, res, next) => {
    try {
      const sessionId = req.get('mcp-session-id');
      if (sessionId === undefined)
        return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (!req.get('accept')?.includes('text/event-stream'))
        return sendJsonRpcError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
      let found: Awaited<ReturnType<typeof sessions.use>>;
      try {
        found = await sessions.use(sessionId, subjectOf(res));
      } catch (error) {
        return sessionStateUnavailable(res, error);
      }
      if (!found) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      const lastEventId = req.get('last-event-id');
      if (lastEventId !== undefined) return await resume(res, sessionId, lastEventId, found.hold);
      listen(res, sessionId, found.hold);
    } catch (error) {
      next(error);
    }
  };

  const remove: RequestHandler = async (req, res) => {
    const sessionId = req.get('mcp-session-id');
    if (sessionId === undefined)
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let deleted: boolean;
    try {
      deleted = await sessions.delete(sessionId, subjectOf(res));
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if (!deleted) return sendJsonRpcError(res, 404, -32001, 'Session not found');
    res.status(200).end();
  };

  return { post, get, remove, front };
}

/**
 * Stateless mode: a fresh server and transport per request (the SDK cannot reuse them). A cancellation
 * arrives on a request of its own, so in-flight calls are registered by (principal, request id) to be
 * aborted, here or on another replica. The principal is the verified subject, or for anonymous callers
 * the client address: request ids are small counters every client repeats, and the address is the one
 * thing an anonymous caller cannot choose for another (behind a proxy, as far as TRUST_PROXY lets
 * Express trust X-Forwarded-For). Anonymous clients sharing one address (NAT) still share a namespace:
 * they are one principal to us.
 */
function statelessPost(
  options: McpRouteOptions,
  principalFor: PrincipalFor,
  direct: DirectToolCalls,
): McpPostHandler {
  const { cancellations } = options.state;
  return async (req, res, next) => {
    try {
      const message = res.locals.message as JsonRpcMessage;
      const principal = principalFor(res);
      if (isCancellation(message)) {
        cancellations.cancel(callKey(principal, message.params?.requestId));
        res.statusCode = 202;
        res.end();
        return;
      }
      const controller = new AbortController();
      const unregister =
        message.id !== undefined
          ? cancellations.register(callKey(principal, message.id), () => controller.abort('cancelled'))
          : () => undefined;
      const answered = await direct(req, res, 'legacy', { controller }).catch((error: unknown) => {
        unregister();
        throw error;
      });
      if (answered) return unregister();
      const server = createMcpServer(options.server, { requestSignal: controller.signal });
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        unregister();
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    } catch (error) {
      next(error);
    }
  };
}
