/**
 * The one /mcp handler, like /graphql's (graphql-handler.ts): a plain function over node's request and
 * response that begins the request once (request id, access line, metrics, drain tracking), runs the
 * endpoint's guard list once (mcp-guards.ts), puts what passed on the request (identity, locals, the
 * JSON-RPC message), then hands it to its method's handler (the session, stateless and lean handlers of
 * mcp-route.ts), and writes every refusal (from the transport refusals' registry) and unexpected failure
 * (errorHandler's classified 500) itself. It is dispatched before Express (`dispatchPath`; app.ts has
 * the measured reason); Express serves only the resource metadata beside it.
 */
import type { ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Logger } from '../logger.js';
import { refusalOf } from '../transport-refusals.js';
import type { DrainGate } from './drain-gate.js';
import { errorHandler } from './error-handlers.js';
import type { NodeHandler } from './graphql-handler.js';
import { runGuards } from './guard.js';
import type { ResponseWithLocals } from './locals.js';
import type { McpFacts } from './mcp-guards.js';
import { admitRequest, type McpEndpoint } from './mcp-route.js';
import type { Metrics } from './metrics.js';
import { beginRequest } from './request-context.js';
import { MCP_PATH } from './route-table.js';
import { retryable, writeMcpRefusal } from './write-refusal.js';

export interface McpHandlerDependencies {
  logger: Logger;
  drain: Pick<DrainGate, 'phase' | 'track'>;
  metrics: Pick<Metrics, 'observeRequest'>;
  /** The app's compiled `trust proxy` (TRUST_PROXY): whose X-Forwarded-For names the client. */
  trust: (address: string, hop: number) => boolean;
  endpoint: McpEndpoint;
}

export function createMcpHandler(deps: McpHandlerDependencies): NodeHandler {
  const { endpoint } = deps;
  return async (req, response: ServerResponse) => {
    const address = proxyaddr(req, deps.trust) ?? req.socket.remoteAddress ?? 'unknown';
    beginRequest(deps.logger, req, response, MCP_PATH, address);
    const res = response as ResponseWithLocals;
    deps.metrics.observeRequest(req, res, MCP_PATH);
    const fail = (error: unknown) => errorHandler(error, req, res);
    // Requests refused while draining are answered at once; a session's standalone GET stream lives as
    // long as its session, so it is never waited for.
    if (deps.drain.phase() === 'refusing') return writeMcpRefusal(res, retryable(refusalOf('mcp.draining')));
    if (req.method !== 'GET') deps.drain.track(res);
    try {
      const facts: Partial<McpFacts> = {};
      const refusal = await runGuards(endpoint.guards, endpoint.produce, req, res, facts);
      if (refusal) return writeMcpRefusal(res, refusal);
      admitRequest(req, res, facts);
      // The method guard let only the mode's methods through.
      const handle = endpoint.methods[req.method as keyof McpEndpoint['methods']]!;
      await handle(req, res, (error?: unknown) => {
        if (error !== undefined) fail(error);
      });
    } catch (error) {
      fail(error);
    }
  };
}
