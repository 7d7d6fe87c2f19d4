/**
 * The /mcp guards, in the order the endpoint runs them (`MCP_GUARD_ORDER`): Host and Origin
 * (DNS-rebinding protection, 403), the method (405 with Allow), the protocol revision (400), the bearer
 * token (401 with RFC 9728 discovery), then, for a POST, the body (read bounded and decoded), the
 * JSON-RPC message (parse-json-rpc-body.ts) and the scope a tools/call needs (403 with a scope
 * challenge). Each guard is a pure function of the request and the facts before it, returning a refusal
 * of the transport refusals' registry or nothing.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Identity } from '../auth/identity.js';
import type { Config } from '../config.js';
import { isLoopbackHost, LOOPBACK_NAMES } from './is-loopback-host.js';
import type { OperationCatalogue } from '../operations/operation-catalogue.js';
import { refusalOf, type RefusalCode } from '../transport-refusals.js';
import { createHostCheck, type HostCheck } from './allowed-hosts.js';
import type { BearerOutcome } from './authenticate.js';
import type { Guard } from './guard.js';
import type { BodyOutcome } from './graphql-guards.js';
import { scopeRefusal } from './scope-refusal.js';
import type { RequestLocals } from './locals.js';
import { SUPPORTED_PROTOCOL_VERSIONS, versionRefusal, type ParsedBody } from './parse-json-rpc-body.js';
import { withReply } from './write-refusal.js';

export interface McpGuardOptions {
  mcp: Config['mcp'];
  listenHost: string;
  catalogue: OperationCatalogue;
  /** Where a 401's challenge sends the client for the resource's metadata. */
  metadataUrl(req: IncomingMessage): string;
}

export interface McpFacts {
  bearer: BearerOutcome;
  /** The body as read ({ text: null } for a request that is not a POST, whose body is never read). */
  body: BodyOutcome;
  /** The POST's JSON-RPC message, or why it is refused; undefined for any other method. */
  parsed: ParsedBody | undefined;
}

export const MCP_GUARD_ORDER = [
  'host-and-origin',
  'method',
  'protocol-revision',
  'bearer',
  'body',
  'json-rpc',
  'scope',
] as const;

const BODY_REFUSALS: Record<string, RefusalCode> = {
  'entity.too.large': 'mcp.body-too-large',
  'entity.parse.failed': 'mcp.body-not-json',
  'charset.unsupported': 'mcp.charset-unsupported',
  'encoding.unsupported': 'mcp.encoding-unsupported',
  'encoding.mismatch': 'mcp.encoding-mismatch',
  'request.aborted': 'mcp.request-aborted',
};

/** The unsupported MCP-Protocol-Version header a request carries, if any. */
export function unsupportedVersionOf(req: IncomingMessage): string | undefined {
  const version = req.headers['mcp-protocol-version'];
  if (version === undefined) return undefined;
  const named = Array.isArray(version) ? version.join(', ') : version;
  return SUPPORTED_PROTOCOL_VERSIONS.includes(named) ? undefined : named;
}

/** The verified identity of the bearer fact, or null. */
const viewerOf = (bearer: BearerOutcome | undefined): Identity | null =>
  bearer?.kind === 'verified' ? bearer.identity : null;

export interface McpGuards {
  hostCheck: HostCheck;
  list: readonly Guard<McpFacts>[];
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
  const allowedMethods = mcp.mode === 'sessions' ? ['GET', 'POST', 'DELETE'] : ['POST'];

  const hostAndOrigin: Guard<McpFacts> = {
    name: 'host-and-origin',
    check: (req) => {
      const host = req.headers.host ?? '';
      if (!hostCheck.allows(host)) return refusalOf('mcp.host-not-allowed', { host });
      const { origin } = req.headers;
      if (origin === undefined) return undefined;
      let originName = '';
      let normalized = '';
      try {
        ({ hostname: originName, origin: normalized } = new URL(origin));
      } catch {
        return refusalOf('mcp.origin-malformed');
      }
      const allowed =
        allowedOrigins.has(origin) ||
        allowedOrigins.has(normalized) ||
        (loopbackBind &&
          LOOPBACK_NAMES.includes(originName) &&
          LOOPBACK_NAMES.includes(hostCheck.hostnameOf(host)));
      return allowed ? undefined : refusalOf('mcp.origin-not-allowed', { origin });
    },
  };

  const method: Guard<McpFacts> = {
    name: 'method',
    check: (req) =>
      allowedMethods.includes(req.method ?? '')
        ? undefined
        : refusalOf('mcp.method-not-allowed', {
            method: req.method ?? '',
            allowed: allowedMethods.join(', '),
          }),
  };

  const protocolRevision: Guard<McpFacts> = {
    name: 'protocol-revision',
    // A POST may be a 2026-07-28 request, whose answer is the SDK's UnsupportedProtocolVersionError
    // (with the request's id and the versions it serves): the JSON-RPC guard decides once it is read.
    check: (req) => {
      const version = unsupportedVersionOf(req);
      return version !== undefined && req.method !== 'POST' ? versionRefusal(version) : undefined;
    },
  };

  const bearer: Guard<McpFacts> = {
    name: 'bearer',
    needs: 'bearer',
    check: (req, { bearer: outcome }) => {
      if (outcome?.kind === 'invalid')
        return refusalOf('mcp.token-invalid', { reason: outcome.reason, resourceMetadata: metadataUrl(req) });
      if (outcome?.kind === 'absent' && mcp.auth === 'required')
        return refusalOf('mcp.token-required', { resourceMetadata: metadataUrl(req) });
      return undefined;
    },
  };

  const body: Guard<McpFacts> = {
    name: 'body',
    needs: 'body',
    check: (_req, { body: read }) => {
      if (!read || !('error' in read)) return undefined;
      const code = read.error.type === undefined ? undefined : BODY_REFUSALS[read.error.type];
      return refusalOf(code ?? 'mcp.body-unreadable');
    },
  };

  const jsonRpc: Guard<McpFacts> = {
    name: 'json-rpc',
    needs: 'parsed',
    check: (_req, { parsed }) => (parsed && 'refusal' in parsed ? parsed.refusal : undefined),
  };

  const scope: Guard<McpFacts> = {
    name: 'scope',
    needs: 'parsed',
    check: (req, facts) => {
      const message = facts.parsed && 'message' in facts.parsed ? facts.parsed.message : undefined;
      if (!message) return undefined;
      const refused = scopeRefusal(options.catalogue, viewerOf(facts.bearer), message);
      if (!refused) return undefined;
      const { missing, wanted, description } = refused;
      const id = (message as { id?: string | number }).id ?? null;
      return withReply(
        refusalOf('mcp.insufficient-scope', {
          description,
          wanted: wanted.join(' '),
          resourceMetadata: metadataUrl(req),
        }),
        { data: { requiredScopes: missing }, id },
      );
    },
  };

  return { hostCheck, list: [hostAndOrigin, method, protocolRevision, bearer, body, jsonRpc, scope] };
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
