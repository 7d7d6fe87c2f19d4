/**
 * Graceful shutdown for the HTTP surface (the product contract's SIGTERM drain). Closing happens in phases:
 *   1. not ready: /readyz answers 503 so load balancers stop routing here, while everything is still
 *      served (the optional pre-stop delay runs in this phase);
 *   2. refusing: every new request, new sessions and requests on existing sessions included, is a 503
 *      with Retry-After and a classified JSON body, while requests already received run to the end;
 *   3. the caller closes sessions and connections once `settle` resolves (all finished, or grace over).
 * Probes (/healthz, /readyz, /metrics) are always answered. /graphql and /mcp are begun by their own
 * handlers, which ask `phase` and `track` (and the /mcp one leaves a session's listening GET stream
 * untracked: it lives as long as the session; closing the sessions ends it); Express's middleware here
 * gates every other path. Which path is which comes from the route table (route-table.ts).
 */
import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { sendError } from './send-error.js';
import { routeOf } from './route-table.js';

const RETRY_AFTER_SECONDS = 5;

type DrainPhase = 'serving' | 'not-ready' | 'refusing';

export interface DrainGate {
  middleware: RequestHandler;
  /** Counts a request as in flight until its response closes (the one handlers admit through this). */
  track(res: ServerResponse): void;
  phase(): DrainPhase;
  /** Phase 1: readiness turns false; requests are still served. */
  stopReadiness(): void;
  /**
   * Phase 2: refuse new requests and wait for those in flight. Resolves true when they all finished,
   * false when `graceMs` ran out first.
   */
  settle(graceMs: number): Promise<boolean>;
  /** Requests being answered now (long-lived listening streams excepted). */
  inFlight(): number;
}

function refuse(res: Response): void {
  res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  res.setHeader('Connection', 'close');
  const message = 'The server is shutting down; retry the request (another instance will take it)';
  sendError(res, 503, 'UNAVAILABLE', message, { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

export function createDrainGate(): DrainGate {
  let phase: DrainPhase = 'serving';
  const active = new Set<ServerResponse>();
  let onIdle: (() => void) | undefined;

  const track = (res: ServerResponse) => {
    active.add(res);
    res.once('close', () => {
      active.delete(res);
      if (active.size === 0) onIdle?.();
    });
  };

  const middleware: RequestHandler = (req, res, next) => {
    if (routeOf(req.path) === 'probe') return next();
    if (phase === 'refusing') return refuse(res);
    track(res);
    next();
  };

  return {
    middleware,
    track,
    phase: () => phase,
    inFlight: () => active.size,
    stopReadiness() {
      if (phase === 'serving') phase = 'not-ready';
    },
    settle(graceMs) {
      phase = 'refusing';
      // Keep-alive connections close after their current answer, so clients reconnect elsewhere.
      for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (active.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), graceMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}
