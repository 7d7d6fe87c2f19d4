/**
 * The node:http front: a request listener in front of the Express app that serves the hot /mcp POSTs
 * below Express (no router walk, no Express request and response objects, one body read), and hands
 * every other request to Express untouched. It serves a POST /mcp (stateless mode, 2026-07-28 in session
 * mode, and a 2025 session's plain tools/call) with a plain UTF-8 JSON body of a declared length within
 * the limit; everything else, and every refusal, is Express's. Each policy is the code the Express chain
 * runs, called as a plain function: the request context and access line, drain gate, metrics, Host/Origin
 * checks, bearer authentication, the body checks, the scope check and the POST handlers themselves. A
 * request handed on after the front began it carries what the front did (front-handoff.ts), so Express
 * neither begins it again nor reads its body or token twice, nor looks a session up again. (/graphql is
 * one handler of its own, graphql-handler.ts, which Express mounts first.)
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Logger } from '../logger.js';
import { classify } from '../mcp/direct-tool-call.js';
import { callHeadersOf, type McpRequest } from './direct-tool-calls.js';
import type { DrainGate } from './drain-gate.js';
import { errorHandler } from './error-handlers.js';
import { recordFrontWork, type FrontWork } from './front-handoff.js';
import type { ResponseWithLocals } from './locals.js';
import { admitRequest, type McpFront } from './mcp-route.js';
import type { Metrics } from './metrics.js';
import { isPlainBody, type BodyLimits } from './read-body.js';
import { beginRequest } from './request-context.js';

export interface FrontDependencies {
  /** Everything the front does not serve, and every refusal. */
  express: RequestListener;
  /** The app's compiled `trust proxy` (TRUST_PROXY): the client address is Express's `req.ip`. */
  trust: (address: string, hop: number) => boolean;
  logger: Logger;
  drain: DrainGate;
  metrics: Metrics;
  verifier: BearerVerifier;
  body: BodyLimits;
  mcp: McpFront;
  mcpMode: 'sessions' | 'stateless';
  /** Told who answered each request the front began (tests check the front served what it should). */
  onAnswer?: (path: string, by: 'front' | 'express') => void;
}

type FrontRequest = McpRequest & { body?: unknown };

export function createFront(deps: FrontDependencies): RequestListener {
  const { express, drain } = deps;

  /** Hands a request the front began to Express, with what it did already. */
  const handOff = (req: IncomingMessage, res: ServerResponse, work: FrontWork) => {
    deps.onAnswer?.(req.url!, 'express');
    recordFrontWork(req, work);
    express(req, res);
  };
  const fail = (req: IncomingMessage, res: ResponseWithLocals) => (error: unknown) =>
    errorHandler(error, req, res);

  const begin = (req: IncomingMessage, res: ServerResponse, path: string) => {
    const address = proxyaddr(req, deps.trust) ?? req.socket.remoteAddress ?? 'unknown';
    const locals = beginRequest(deps.logger, req, res, path, address);
    drain.track(res);
    deps.metrics.observeRequest(req, res, path);
    return { locals, res: res as ResponseWithLocals };
  };

  // The /mcp guards (mcp-guards.ts), run once; a refusal is Express's to answer, with the facts read.
  async function serveMcp(req: FrontRequest, response: ServerResponse): Promise<void> {
    const { res } = begin(req, response, '/mcp');
    const { refusal, facts } = await deps.mcp.guard(req, res);
    const work: FrontWork = { bearer: facts.bearer, body: facts.body as FrontWork['body'] };
    if (refusal) return handOff(req, res, work);
    admitRequest(req, res, facts);
    const message = res.locals.message as object;
    if (deps.mcpMode === 'sessions' && classify(message, callHeadersOf(req)).kind === 'legacy')
      return serveSessionCall(req, res, work, message);
    deps.onAnswer?.('/mcp', 'front');
    await deps.mcp.post(req, res, fail(req, res));
  }

  /**
   * Session mode's 2025-era POSTs: a session's plain tools/call runs the session steps Express's POST
   * runs (lookup, owner check, hold, the lean call); everything else, decided before the session store is
   * asked where the message allows (initialize, no session, notifications, responses, progress, tasks),
   * and every refusal of the steps is Express's, handed on with the steps' outcome so none runs twice.
   */
  async function serveSessionCall(
    req: FrontRequest,
    res: ResponseWithLocals,
    work: FrontWork,
    message: object,
  ): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const calls = deps.mcp.sessionCalls;
    if (typeof sessionId !== 'string' || !calls?.mayTake(req, message)) return handOff(req, res, work);
    const left = await calls.post(req, res, message, sessionId);
    if (left) return handOff(req, res, { ...work, session: left });
    deps.onAnswer?.('/mcp', 'front');
  }

  return (req, res) => {
    const { url, headers } = req;
    if (
      req.method !== 'POST' ||
      url !== '/mcp' ||
      !isPlainBody(headers, deps.body.limitBytes) ||
      drain.phase() === 'refusing'
    ) {
      express(req, res);
      return;
    }
    serveMcp(req, res).catch((error: unknown) => errorHandler(error, req, res as ResponseWithLocals));
  };
}
