/**
 * Session mode, served per request: a session is a record in the session store (this process's, or
 * Redis's), and every request on it is answered by a fresh server and transport, exactly like stateless
 * mode, so any replica can serve it. A tools/call's stream is resumable (its events go to the event
 * store, the client reconnects with Last-Event-ID); its call runs to the end even if the stream is cut.
 *
 * What the session handlers (session-initialize.ts, session-post.ts, session-streams.ts,
 * session-delete.ts) share: the stores, the elicitation channel, the lean call, and the standalone GET
 * streams this replica holds.
 */
import { createSessionElicitation } from '../mcp/session-elicitation.js';
import { sessionToolCalls, type McpRequest, type SessionToolCalls } from './direct-tool-calls.js';
import { localsOf, type ResponseWithLocals } from './locals.js';
import type { McpRouteOptions } from './mcp-route.js';
import { refusalOf } from '../transport-refusals.js';
import { withReply, writeMcpRefusal } from './write-refusal.js';
import { messageFrame } from './sse-frames.js';

export type SubjectOf = (res: ResponseWithLocals) => string | null;
export type PrincipalFor = (res: ResponseWithLocals) => string;

/** A client whose stream was cut reconnects after this (the SSE `retry` field of the priming event). */
export const RETRY_INTERVAL_MS = 1000;
/** SSE comments on open streams, so idle proxies keep them (the SDK's interval). */
export const KEEPALIVE_MS = 15_000;
const TOOL_LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };

export interface SessionContext {
  options: McpRouteOptions;
  subjectOf: SubjectOf;
  principalFor: PrincipalFor;
  elicitation: ReturnType<typeof createSessionElicitation>;
  leanCall: SessionToolCalls;
  /** The standalone GET stream of each session, on this replica (one at most, as the SDK allows). */
  listening: Map<string, ResponseWithLocals>;
}

export function createSessionContext(
  options: McpRouteOptions,
  subjectOf: SubjectOf,
  principalFor: PrincipalFor,
): SessionContext {
  const { sessions } = options.state;
  const elicitation = createSessionElicitation(options.state.answers, options.mcp.elicitationTimeoutMs);
  const leanCall = sessionToolCalls(options.server, options.state, {
    enabled: options.mcp.directToolCalls,
    retryIntervalMs: RETRY_INTERVAL_MS,
    keepaliveMs: KEEPALIVE_MS,
  });
  const listening = new Map<string, ResponseWithLocals>();
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
  return { options, subjectOf, principalFor, elicitation, leanCall, listening };
}

/** Session state (Redis) failed: a clear, retryable refusal; never a local session the others cannot see. */
export function sessionStateUnavailable(res: ResponseWithLocals, error: unknown): void {
  localsOf(res).logger.warn({ err: error }, 'MCP session state unavailable');
  const refusal = refusalOf('mcp.session-state-unavailable');
  writeMcpRefusal(
    res,
    withReply(refusal, {
      data: { classification: refusal.classification, retryable: true, retryAfterSeconds: 5 },
    }),
  );
}

/** Puts what a tool call's logs should name beside the identity the SDK hands to handlers. */
export function carrySessionId(req: McpRequest, sessionId: string): void {
  const { auth } = req;
  if (auth) auth.extra = { ...auth.extra, sessionId };
}
