/**
 * What the node:http front (front.ts) did for a request before handing it to Express: it began the
 * request (id, logger, access line, drain tracking, metrics) and may have read the body, verified the
 * bearer token and looked up the session the request names. Express's middleware and handlers take
 * these from here instead of doing them a second time.
 */
import type { IncomingMessage } from 'node:http';
import type { SessionHold, SessionRecord } from '../shared-state/session-store.js';
import type { BearerOutcome } from './authenticate.js';

/** A body read by the front: its text, or the read's error (typed like body-parser's). */
export type PreReadBody = { text: string } | { error: Error & { type: string; status: number } };

/**
 * How far a session POST's steps got (mcp-route.ts): the session found, checked against its owner and
 * held (the hold passes on with it), or a refusal to answer.
 */
export type SessionOutcome =
  | { record: SessionRecord; hold: SessionHold }
  | { refusal: 'unknown' }
  | { refusal: 'unavailable'; error: unknown }
  | { refusal: 'invalid-response'; problem: string };

export interface FrontWork {
  body?: PreReadBody;
  bearer?: BearerOutcome;
  session?: SessionOutcome;
}

const handed = new WeakMap<IncomingMessage, FrontWork>();

export function recordFrontWork(req: IncomingMessage, work: FrontWork): void {
  handed.set(req, work);
}

/** Set when the front began this request (Express must not begin it again). */
export function frontWorkOf(req: IncomingMessage): FrontWork | undefined {
  return handed.get(req);
}
