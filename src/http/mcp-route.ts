/**
 * The Streamable HTTP endpoint /mcp (SPEC section 6) on Express, around the SDK's transports. Our layer
 * adds what the SDK leaves out or gets differently from the spec: Origin and Host checks (403), our
 * protocol revisions only (400), JSON-RPC errors instead of HTML for bad bodies (-32700), no batches,
 * 405 with Allow for other methods, -32602 for malformed or over-deep params, sessions bound to their
 * creator and capped per principal (429) and in total (least recently used idle one evicted, else 503),
 * bearer auth with RFC 9728 discovery, and cancellation in stateless mode. After these guards a
 * 2026-07-28 request goes to the SDK's per-request handler and a 2025-era one to the session or stateless
 * handling here (route-by-era.ts).
 */
import { randomUUID } from 'node:crypto';
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type AuthInfo } from '@modelcontextprotocol/server';
import type { BearerVerifier } from '../auth/bearer.js';
import { ALL_SCOPES } from '../auth/identity.js';
import { isLoopbackHost, LOOPBACK_NAMES, type Config } from '../config.js';
import {
  createMcpServer,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  type McpServerDependencies,
} from '../mcp/mcp-server.js';
import { checkRequestParams, hasEnvelopeClaim, nestsDeeperThan } from '../mcp/check-request-params.js';
import { principalOf, type SessionRegistry } from '../mcp/sessions.js';
import { readBearer, type BearerOutcome } from './authenticate.js';
import { carryRequestLocals } from './carry-request-locals.js';
import { BODY_ERRORS } from './error-handlers.js';
import { insufficientScope } from './insufficient-scope.js';
import { createHostCheck, refuseForeignHosts } from './allowed-hosts.js';
import { directToolCalls, type DirectToolCalls } from './direct-tool-calls.js';
import { localsOf } from './locals.js';
import { readBody } from './read-body.js';
import { routeByEra } from './route-by-era.js';
import { sendJsonRpcError } from './send-json-rpc-error.js';

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
  sessions: SessionRegistry;
  oauthIssuer?: string;
}

/** The canonical base URL: configured, or as the request reached us. */
function baseUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export function mcpRoutes(options: McpRouteOptions): Router {
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
  const guardOriginAndHost: RequestHandler = (req, res, next) => {
    const host = req.get('host') ?? '';
    const hostname = hostCheck.hostnameOf(host);
    if (!hostCheck.allows(host))
      return sendJsonRpcError(res, 403, -32000, `Forbidden: Host ${host} is not allowed`);
    const origin = req.get('origin');
    if (origin !== undefined) {
      let originName = '';
      let normalized = '';
      try {
        ({ hostname: originName, origin: normalized } = new URL(origin));
      } catch {
        return sendJsonRpcError(res, 403, -32000, 'Forbidden: malformed Origin');
      }
      const allowed =
        allowedOrigins.has(origin) ||
        allowedOrigins.has(normalized) ||
        (loopbackBind && LOOPBACK_NAMES.includes(originName) && LOOPBACK_NAMES.includes(hostname));
      if (!allowed) return sendJsonRpcError(res, 403, -32000, `Forbidden: Origin ${origin} is not allowed`);
    }
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

  const refuseVersion = (res: Response, version: string) =>
    sendJsonRpcError(
      res,
      400,
      -32000,
      `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );

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

  /** Verifies the bearer token on every request; the identity (never the token) goes on as authInfo. */
  const authenticate: RequestHandler = async (req, res, next) => {
    const challenge = (extra: string) => ({
      'WWW-Authenticate': `Bearer ${extra}resource_metadata="${metadataUrl(req)}"`,
    });
    let outcome: BearerOutcome;
    try {
      outcome = await readBearer(req.get('authorization'), options.verifier);
    } catch (error) {
      return next(error);
    }
    if (outcome.kind === 'absent') {
      if (mcp.auth === 'required')
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
    const { identity } = outcome;
    localsOf(res).viewer = identity;
    const authInfo: AuthInfo = {
      // The SDK wants a token string; it gets a placeholder so the raw token goes no further than here.
      token: 'verified',
      clientId: identity.subject,
      scopes: [...identity.scopes],
      expiresAt: identity.expiresAt,
      extra: { identity },
    };
    (req as Request & { auth?: AuthInfo }).auth = authInfo;
    next();
  };

  /** Reads the JSON-RPC body ourselves: JSON errors become -32700 and batches are refused. */
  const parseBody: RequestHandler = (req, res, next) => {
    if (!req.is('application/json')) {
      return sendJsonRpcError(
        res,
        415,
        -32000,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    }
    if (Array.isArray(message)) {
      return sendJsonRpcError(
        res,
        400,
        -32600,
        'Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18)',
      );
    }
    if (typeof message !== 'object' || message === null) {
      return sendJsonRpcError(
        res,
        400,
        -32600,
        'Invalid Request: the body must be a JSON-RPC message object',
      );
    }
    const unsupportedVersion = res.locals.unsupportedVersion as string | undefined;
    if (unsupportedVersion !== undefined && !hasEnvelopeClaim(message)) {
      return refuseVersion(res, unsupportedVersion);
    }
    const { id, method } = message as { id?: unknown; method?: unknown };
    if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') {
      const problem = checkRequestParams(message, mcp.maxArgumentDepth);
      // A request's error is a JSON-RPC response to it: HTTP 200, the request's id.
      if (problem) return sendJsonRpcError(res, 200, -32602, problem, { id });
    }
    // Anything else nested that deep (a response's result, a notification's params) would overflow the
    // SDK's parser, whose error names the overflow.
    if (nestsDeeperThan(message, mcp.maxArgumentDepth + 2)) {
      return sendJsonRpcError(
        res,
        400,
        -32600,
        `Invalid Request: the message is nested deeper than ${mcp.maxArgumentDepth} levels`,
      );
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
    res.locals.message = message;
    next();
  };

  const subjectOf = (res: Response) => localsOf(res).viewer?.subject ?? null;
  const principal = (res: Response) => principalOf(subjectOf(res), localsOf(res).clientAddress);

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
  const scopeCheck = insufficientScope(options.server.operations, metadataUrl);
  const direct = directToolCalls(options.server, mcp.directToolCalls);
  if (mcp.mode === 'sessions') {
    const handle = sessionHandlers(options, subjectOf, principal);
    router.post('/mcp', body, parseBody, scopeCheck, routeByEra(handle.post, options.server, direct));
    router.get('/mcp', handle.stream);
    router.delete('/mcp', handle.stream);
  } else {
    router.post(
      '/mcp',
      body,
      parseBody,
      scopeCheck,
      routeByEra(statelessPost(options, principal, direct), options.server, direct),
    );
  }
  router.use('/mcp', bodyErrors);
  return router;
}

type SubjectOf = (res: Response) => string | null;
type PrincipalFor = (res: Response) => string;

function sessionHandlers(options: McpRouteOptions, subjectOf: SubjectOf, principalFor: PrincipalFor) {
  const { sessions } = options;
  const busyUntilClosed = (res: Response) => (listener: () => void) => res.once('close', listener);

  const post: RequestHandler = async (req, res, next) => {
    try {
      const message = res.locals.message as unknown;
      const sessionId = req.get('mcp-session-id');
      if (sessionId !== undefined) {
        const session = sessions.find(sessionId, subjectOf(res));
        if (!session)
          return sendJsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize');
        sessions.track(session, busyUntilClosed(res));
        return await session.transport.handleRequest(req, res, message);
      }
      if (!isInitializeRequest(message)) {
        return sendJsonRpcError(
          res,
          400,
          -32000,
          'Bad Request: Mcp-Session-Id header is required (send initialize first)',
        );
      }
      const owner = subjectOf(res);
      const refusal = await sessions.open(principalFor(res), async (commit) => {
        const server = createMcpServer(options.server);
        const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id: string) => commit(id, { transport, server, owner }),
          onsessionclosed: (id) => sessions.delete(id),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        try {
          await server.connect(transport);
          await transport.handleRequest(req, res, message);
        } finally {
          // Initialization failed (no session id): nothing else will close this server.
          if (!transport.sessionId) await server.close().catch(() => undefined);
        }
      });
      if (refusal === 'principal-cap') {
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
      if (refusal === 'full') {
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
    } catch (error) {
      next(error);
    }
  };

  const stream: RequestHandler = async (req, res, next) => {
    try {
      const sessionId = req.get('mcp-session-id');
      if (sessionId === undefined)
        return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const session = sessions.find(sessionId, subjectOf(res));
      if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      sessions.track(session, busyUntilClosed(res));
      await session.transport.handleRequest(req, res);
      if (req.method === 'DELETE') sessions.delete(sessionId);
    } catch (error) {
      next(error);
    }
  };

  return { post, stream };
}

/**
 * Stateless mode: a fresh server and transport per request (the SDK cannot reuse them). A cancellation
 * arrives on a request of its own, so in-flight calls are kept by (principal, request id) to be aborted.
 * The principal is the verified subject, or for anonymous callers the client address: request ids are
 * small counters every client repeats, and the address is the one thing an anonymous caller cannot
 * choose for another (behind a proxy, as far as TRUST_PROXY lets Express trust X-Forwarded-For).
 * Anonymous clients sharing one address (NAT) still share a namespace: they are one principal to us.
 */
function statelessPost(
  options: McpRouteOptions,
  principalFor: PrincipalFor,
  direct: DirectToolCalls,
): RequestHandler {
  const inFlight = new Map<string, AbortController>();
  const keyOf = (principal: string, id: unknown) => `${principal}\u0000${typeof id}:${String(id)}`;

  return async (req, res, next) => {
    try {
      const message = res.locals.message as {
        method?: string;
        id?: unknown;
        params?: { requestId?: unknown };
      };
      const principal = principalFor(res);
      if (message.method === 'notifications/cancelled' && message.id === undefined) {
        inFlight.get(keyOf(principal, message.params?.requestId))?.abort('cancelled');
        res.status(202).end();
        return;
      }
      const controller = new AbortController();
      const key = message.id !== undefined ? keyOf(principal, message.id) : undefined;
      if (key) inFlight.set(key, controller);
      const forget = () => {
        if (key && inFlight.get(key) === controller) inFlight.delete(key);
      };
      const answered = await direct(req, res, 'legacy', { controller }).catch((error: unknown) => {
        forget();
        throw error;
      });
      if (answered) return forget();
      const server = createMcpServer(options.server, controller.signal);
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        forget();
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
