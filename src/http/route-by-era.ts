/**
 * One /mcp endpoint for both protocol eras. A request the SDK recognises as 2025-era (no per-request
 * `_meta` envelope: initialize, session traffic, stateless 2025 calls) goes to our own session or
 * stateless handling, which keeps every 2025 behaviour the SDK's stateless fallback would lose (GET and
 * DELETE, session binding, 404 for unknown sessions, cancellation). Everything else is the 2026-07-28
 * revision and goes to the SDK's strict per-request handler: no handshake, no session, a JSON answer
 * unless the call reports progress (then SSE), cancellation by closing the request, the required
 * Mcp-Method/Mcp-Name headers checked against the body (-32020), `resultType` and `ttlMs` on results.
 *
 * Runs after our guards (origin, revision allowlist, auth, body limit, JSON-RPC parsing, scope check),
 * so both eras share them; the identity and client address reach the tools as `req.auth` either way.
 * A plain 2026-07-28 tools/call is answered by the lean path (direct-tool-calls.ts) before the SDK.
 */
import type { IncomingMessage } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { classify } from '../mcp/direct-tool-call.js';
import { createMcpServer, type McpServerDependencies } from '../mcp/mcp-server.js';
import { callHeadersOf, type DirectToolCalls, type McpRequest } from './direct-tool-calls.js';
import type { ResponseWithLocals } from './locals.js';
import { refuseOverRequestLimit } from './request-limit.js';

/**
 * A /mcp method's handler after the guards (a POST's parsed message on `res.locals.message`), on
 * node's request and response: the one /mcp handler (mcp-handler.ts) runs it.
 */
export type McpPostHandler = (
  req: McpRequest,
  res: ResponseWithLocals,
  next: (error?: unknown) => void,
) => void | Promise<void>;

export function routeByEra(
  legacy: McpPostHandler,
  server: McpServerDependencies,
  direct: DirectToolCalls,
): McpPostHandler {
  const modern = toNodeHandler(
    createMcpHandler(() => createMcpServer(server, { era: 'modern' }), {
      legacy: 'reject',
      onerror: (error) => {
        // Rejections (a header that does not match the body, an unknown revision) are the client's doing;
        // anything else went wrong on our side.
        const rejected =
          typeof (error as { code?: unknown }).code === 'number' || /^Rejected/.test(error.message);
        if (rejected) server.logger.debug({ err: error.message }, 'MCP 2026-07-28 request rejected');
        else server.logger.warn({ err: error }, 'MCP 2026-07-28 request failed');
      },
    }),
    { onerror: (error) => server.logger.error({ err: error }, 'MCP 2026-07-28 handler failed') },
  );
  return async (req, res, next) => {
    try {
      const message = res.locals.message as unknown;
      // Counted before either era builds a server for it (every POST of both modes comes here).
      if (await refuseOverRequestLimit(server.limits, message, res)) return;
      // The body was read and parsed already: this is the classification the SDK's `isLegacyRequest`
      // makes of a parsed body (called directly: that predicate wants a web Request, built only to be
      // read back). Only POSTs come here.
      const headers = callHeadersOf(req);
      const classification = classify(message, headers);
      if (classification.kind === 'legacy') return legacy(req, res, next);
      if (await direct(req, res, 'modern', { headers, classification })) return;
      await modern(req as IncomingMessage, res, message);
    } catch (error) {
      next(error);
    }
  };
}
