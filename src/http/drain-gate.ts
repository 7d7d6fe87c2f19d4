/**
 * Graceful shutdown for the HTTP surface (the product contract's SIGTERM drain). Closing happens in phases:
 *   1. not ready: /readyz answers 503 so load balancers stop routing here, while everything is still
 *      served (the optional pre-stop delay runs in this phase);
 *   2. refusing: every new request, new sessions and requests on existing sessions included, is a 503
 *      with Retry-After and a classified JSON body, while requests already received run to the end;
 *   3. the caller closes sessions and connections once `settle` resolves (all finished, or grace over).
 * Probes (/healthz, /readyz, /metrics) are always answered. A GET /mcp is a session's listening stream:
 * it lives as long as the session, so it is not waited for; closing the sessions ends it. Which path is
 * which comes from the route table the router uses (route-table.ts): /MCP or /mcp/ is no route there,
 * so it is neither a stream to leave running nor refused as /mcp.
 */
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { sendError } from './problem.js';
import { routeOf } from './route-table.js';
import { refusalOf } from '../transport-refusals.js';
import { retryable, writeMcpRefusal } from './write-refusal.js';

const RETRY_AFTER_SECONDS = 5;

export type DrainPhase = 'serving' | 'not-ready' | 'refusing';

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

const isListeningStream = (req: Request) => req.method === 'GET' && routeOf(req.path) === 'mcp';

function refuse(req: Request, res: Response): void {
  if (routeOf(req.path) === 'mcp') return writeMcpRefusal(res, retryable(refusalOf('mcp.draining')));
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
    if (phase === 'refusing') return refuse(req, res);
    if (isListeningStream(req)) return next();
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
