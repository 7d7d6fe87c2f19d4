/**
 * The Streamable HTTP endpoint /mcp (the SPEC's MCP transport), around the SDK's transports. Our
 * layer adds what the SDK leaves out or gets differently from the spec: Origin and Host checks (403), our
 * protocol revisions only (400), JSON-RPC errors instead of HTML for bad bodies (-32700), no batches, 405
 * with Allow for other methods, -32602 for malformed or over-deep params, sessions bound to their creator
 * and capped per principal (429) and in total (least recently used idle one evicted, else 503), bearer auth
 * with RFC 9728 discovery, cancellation wherever the call runs, and resumable call streams. Sessions are
 * records in the shared state (src/shared-state: in the process, or in Redis so that any replica serves any
 * request), every request answered by a fresh server and transport. After these guards a 2026-07-28 request
 * goes to the SDK's per-request handler and a 2025-era one to the session or stateless handling
 * (route-by-era.ts).
 *
 * This file assembles the endpoint the one handler (mcp-handler.ts) serves: metadata (mcp-metadata.ts,
 * which Express serves), the guards (mcp-guards.ts,
 * parse-json-rpc-body.ts), the session handlers (session-initialize.ts, session-post.ts, session-streams.ts,
 * session-delete.ts), stateless mode (stateless-post.ts) and the lean call with its JSON and SSE writers
 * (direct-tool-calls.ts).
 */
import type { IncomingMessage } from 'node:http';
import { Router } from 'express';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Config } from '../config.js';
import type { McpServerDependencies } from '../mcp/mcp-server.js';
import { principalOf } from '../shared-state/session-store.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { refuseForeignHosts } from './allowed-hosts.js';
import { bearerOf } from './authenticate.js';
import { carryLocals } from './carry-locals.js';
import { directToolCalls, type McpRequest } from './direct-tool-calls.js';
import type { FactProducers, Guard } from './guard.js';
import { localsOf, type ResponseWithLocals } from './locals.js';
import { admitIdentity, mcpGuards, unsupportedVersionOf, type McpFacts } from './mcp-guards.js';
import { mcpMetadata, type Trust } from './mcp-metadata.js';
import { parseJsonRpcBody } from './parse-json-rpc-body.js';
import { hasBody, readRequestBody, type BodyLimits } from './read-body.js';
import { routeByEra, type McpPostHandler } from './route-by-era.js';
import { createSessionContext } from './session-context.js';
import { sessionDelete } from './session-delete.js';
import { sessionInitialize } from './session-initialize.js';
import { sessionPost } from './session-post.js';
import { sessionStreams } from './session-streams.js';
import { statelessPost } from './stateless-post.js';

export interface McpRouteOptions {
  mcp: Config['mcp'];
  listenHost: string;
  /** The one body reader's bounds (read-body.ts), shared with /graphql. */
  body: BodyLimits;
  verifier: BearerVerifier;
  server: McpServerDependencies;
  /**
   * 2025-era sessions, their resumable streams, cancellations and answers to their questions: in this
   * process, or in Redis.
   */
  state: SharedState;
  oauthIssuer?: string;
  /** The app's compiled `trust proxy` (TRUST_PROXY): whose X-Forwarded-Proto names the scheme. */
  trust: Trust;
}

/** Whether a body is JSON as Express's `req.is('application/json')` judges it (a body, that media type). */
const isJson = (req: IncomingMessage): boolean =>
  hasBody(req.headers) &&
  (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';

/** How the /mcp guards' facts are produced: the token verified, the body read once, then parsed. */
function mcpFactProducers(
  verifier: BearerVerifier,
  limits: BodyLimits,
  maxDepth: number,
): FactProducers<McpFacts> {
  return {
    bearer: (req) => bearerOf(req, verifier),
    body: (req) => {
      if (req.method !== 'POST') return { text: null };
      return hasBody(req.headers) ? readRequestBody(req, limits) : { text: null };
    },
    parsed: (req, _res, { body }) => {
      if (req.method !== 'POST' || !body || 'error' in body) return undefined;
      return parseJsonRpcBody(body.text ?? '', isJson(req), unsupportedVersionOf(req), maxDepth);
    },
  };
}

/** What a request that passed every guard carries on: its identity, its locals, its message. */
export function admitRequest(req: McpRequest, res: ResponseWithLocals, facts: Partial<McpFacts>): void {
  const locals = localsOf(res);
  if (facts.bearer?.kind === 'verified') admitIdentity(req, locals, facts.bearer.identity);
  carryLocals(req, locals);
  if (facts.parsed && 'message' in facts.parsed) res.locals.message = facts.parsed.message;
}

export function mcpRoutes(options: McpRouteOptions): McpRoutes {
  const router = Router();
  const { mcp } = options;
  const { metadata, metadataUrl } = mcpMetadata(mcp, options.oauthIssuer, options.trust);
  const guards = mcpGuards({
    mcp,
    listenHost: options.listenHost,
    catalogue: options.server.catalogue,
    metadataUrl,
  });

  // Without PUBLIC_URL the metadata names the resource after the request's Host: only a Host of ours may
  // be named (a foreign one would be reflected as the resource clients are told to get tokens for).
  const ourHostOnly = refuseForeignHosts(guards.hostCheck);
  router.get('/.well-known/oauth-protected-resource', ourHostOnly, metadata);
  router.get('/.well-known/oauth-protected-resource/mcp', ourHostOnly, metadata);

  const subjectOf = (res: ResponseWithLocals) => localsOf(res).viewer?.subject ?? null;
  const principal = (res: ResponseWithLocals) => principalOf(subjectOf(res), localsOf(res).clientAddress);
  const direct = directToolCalls(options.server, mcp.directToolCalls);
  const endpoint: McpEndpoint = {
    guards: guards.list,
    produce: mcpFactProducers(options.verifier, options.body, mcp.maxArgumentDepth),
    methods: {},
  };
  if (mcp.mode === 'sessions') {
    const context = createSessionContext(options, subjectOf, principal);
    const { post } = sessionPost(context, sessionInitialize(context));
    endpoint.methods = {
      POST: routeByEra(post, options.server, direct),
      GET: sessionStreams(context),
      DELETE: sessionDelete(context),
    };
  } else {
    endpoint.methods = {
      POST: routeByEra(statelessPost(options, principal, direct), options.server, direct),
    };
  }
  return { router, endpoint };
}

/** What the one /mcp handler (mcp-handler.ts) runs: the guards, how their facts are produced, the methods. */
export interface McpEndpoint {
  guards: readonly Guard<McpFacts>[];
  produce: FactProducers<McpFacts>;
  /** The handler of each method the mode serves (the method guard refuses every other one first). */
  methods: Partial<Record<'POST' | 'GET' | 'DELETE', McpPostHandler>>;
}

export interface McpRoutes {
  /** The resource metadata routes (RFC 9728), which Express serves. */
  router: Router;
  endpoint: McpEndpoint;
}
