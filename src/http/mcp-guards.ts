/**
 * The /mcp guards that run before any handler, in this order: Host and Origin (DNS-rebinding
 * protection, 403), the method (405 with Allow), the protocol revision (400), the bearer token (401 with
 * RFC 9728 discovery), then, for a POST, the JSON-RPC body (parse-json-rpc-body.ts) and the body reader's
 * own refusals as JSON-RPC errors instead of HTML.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Identity } from '../auth/identity.js';
import { isLoopbackHost, LOOPBACK_NAMES, type Config } from '../config.js';
import { createHostCheck, type HostCheck } from './allowed-hosts.js';
import { bearerOf, type BearerOutcome } from './authenticate.js';
import { BODY_ERRORS } from './error-handlers.js';
import { localsOf, type RequestLocals } from './locals.js';
import { parseJsonRpcBody, SUPPORTED_PROTOCOL_VERSIONS, versionRefusal } from './parse-json-rpc-body.js';
import { sendJsonRpcError } from './send-json-rpc-error.js';

export interface McpGuardOptions {
  mcp: Config['mcp'];
  listenHost: string;
  verifier: BearerVerifier;
  /** Where a 401's challenge sends the client for the resource's metadata. */
  metadataUrl(req: Request): string;
}

export interface McpGuards {
  hostCheck: HostCheck;
  /** The Host/Origin refusal (DNS rebinding) for these headers, or undefined. */
  originRefusal(host: string, origin: string | undefined): string | undefined;
  guardOriginAndHost: RequestHandler;
  onlyKnownMethods: RequestHandler;
  checkProtocolVersion: RequestHandler;
  /** Whether a bearer outcome lets a request on (the refusals are `authenticate`'s to answer). */
  admits(outcome: BearerOutcome): boolean;
  authenticate: RequestHandler;
  parseBody: RequestHandler;
  bodyErrors: ErrorRequestHandler;
}

export function mcpGuards(options: McpGuardOptions): McpGuards {
  const { mcp, metadataUrl } = options;
  const loopbackBind = isLoopbackHost(options.listenHost);
  const publicOrigin = mcp.publicUrl ? new URL(mcp.publicUrl) : undefined;
  // Never "any Host": config refuses a public bind without PUBLIC_URL or MCP_ALLOWED_HOSTS.
  const hostCheck = createHostCheck(mcp, options.listenHost);
  // Origins a browser may call from. The request's own Host is never one of them: a DNS-rebinding
  // page controls it.
  const allowedOrigins = new Set([...mcp.allowedOrigins, ...(publicOrigin ? [publicOrigin.origin] : [])]);

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

  return {
    hostCheck,
    originRefusal,
    guardOriginAndHost,
    onlyKnownMethods,
    checkProtocolVersion,
    admits,
    authenticate,
    parseBody,
    bodyErrors,
  };
}

/** The identity (never the token) goes on as authInfo, which the SDK hands to tool handlers. */
export function admitIdentity(
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
