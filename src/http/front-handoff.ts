/**
 * What the node:http front (front.ts) did for a request before handing it to Express: it began the
 * request (id, logger, access line, drain tracking, metrics) and may have read the body and verified
 * the bearer token. Express's middleware takes these from here instead of doing them a second time.
 */
import type { IncomingMessage } from 'node:http';
import type { BearerOutcome } from './authenticate.js';

/** A body read by the front: its text, or the read's error (typed like body-parser's). */
export type PreReadBody = { text: string } | { error: Error & { type: string; status: number } };

export interface FrontWork {
  body?: PreReadBody;
  bearer?: BearerOutcome;
}

const handed = new WeakMap<IncomingMessage, FrontWork>();

export function recordFrontWork(req: IncomingMessage, work: FrontWork): void {
  handed.set(req, work);
}

/** Set when the front began this request (Express must not begin it again). */
export function frontWorkOf(req: IncomingMessage): FrontWork | undefined {
  return handed.get(req);
}
