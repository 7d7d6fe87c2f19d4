/**
 * The Streamable HTTP endpoint /mcp (the SPEC's MCP transport) on Express, around the SDK's transports. Our
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
 * This file assembles the route from its parts: metadata (mcp-metadata.ts), the guards (mcp-guards.ts,
 * parse-json-rpc-body.ts), the session handlers (session-initialize.ts, session-post.ts, session-streams.ts,
 * session-delete.ts), stateless mode (stateless-post.ts) and the lean call with its JSON and SSE writers
 * (direct-tool-calls.ts).
 */
import type { IncomingMessage } from 'node:http';
import { Router, type RequestHandler } from 'express';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Config } from '../config.js';
import type { McpServerDependencies } from '../mcp/mcp-server.js';
import { principalOf } from '../shared-state/session-store.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { refuseForeignHosts } from './allowed-hosts.js';
import { bearerOf } from './authenticate.js';
import { carryLocals } from './carry-request-locals.js';
import { directToolCalls, type McpRequest } from './direct-tool-calls.js';
import { frontWorkOf, type SessionOutcome } from './front-handoff.js';
import { runGuards, type FactProducers } from './guard.js';
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
import { writeMcpRefusal, type McpRefusal } from './write-refusal.js';

export { SUPPORTED_PROTOCOL_VERSIONS } from './parse-json-rpc-body.js';

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
export function mcpFactProducers(
  verifier: BearerVerifier,
  limits: BodyLimits,
  maxDepth: number,
): FactProducers<McpFacts> {
  return {
    bearer: (req) => bearerOf(req, verifier),
    body: (req) => {
      if (req.method !== 'POST') return { text: null };
      const preRead = frontWorkOf(req)?.body;
      if (preRead) return preRead;
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
  const produce = mcpFactProducers(options.verifier, options.body, mcp.maxArgumentDepth);

  // Without PUBLIC_URL the metadata names the resource after the request's Host: only a Host of ours may
  // be named (a foreign one would be reflected as the resource clients are told to get tokens for).
  const ourHostOnly = refuseForeignHosts(guards.hostCheck);
  router.get('/.well-known/oauth-protected-resource', ourHostOnly, metadata);
  router.get('/.well-known/oauth-protected-resource/mcp', ourHostOnly, metadata);

  const subjectOf = (res: ResponseWithLocals) => localsOf(res).viewer?.subject ?? null;
  const principal = (res: ResponseWithLocals) => principalOf(subjectOf(res), localsOf(res).clientAddress);

  const guard = async (req: IncomingMessage, res: ResponseWithLocals) => {
    const facts: Partial<McpFacts> = {};
    const refusal: McpRefusal | undefined = await runGuards(guards.list, produce, req, res, facts);
    return { refusal, facts };
  };
  const guarded: RequestHandler = (req, res, next) => {
    guard(req, res).then(({ refusal, facts }) => {
      if (refusal) return writeMcpRefusal(res, refusal);
      admitRequest(req, res, facts);
      next();
    }, next);
  };
  router.all('/mcp', guarded);
  const direct = directToolCalls(options.server, mcp.directToolCalls);
  let post: McpPostHandler;
  let sessionCalls: McpFront['sessionCalls'];
  if (mcp.mode === 'sessions') {
    const context = createSessionContext(options, subjectOf, principal);
    const handle = sessionPost(context, sessionInitialize(context));
    sessionCalls = handle.front;
    // Express's request, always: the front hands every 2025-era POST of session mode it does not answer
    // (only plain tools/calls it answers, through handle.front) to Express.
    post = routeByEra(handle.post as unknown as McpPostHandler, options.server, direct);
    router.post('/mcp', post);
    router.get('/mcp', sessionStreams(context));
    router.delete('/mcp', sessionDelete(context));
  } else {
    post = routeByEra(statelessPost(options, principal, direct), options.server, direct);
    router.post('/mcp', post);
  }
  return { router, front: { guard, post, sessionCalls } };
}

/** What the node:http front (front.ts) runs of the route: the same guards, and the POST handler. */
export interface McpFront {
  /** Runs the /mcp guards once: the refusal, or the facts a request that passed them carries on. */
  guard(
    req: IncomingMessage,
    res: ResponseWithLocals,
  ): Promise<{ refusal: McpRefusal | undefined; facts: Partial<McpFacts> }>;
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
