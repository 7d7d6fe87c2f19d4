/**
 * Stateless mode: a fresh server and transport per request (the SDK cannot reuse them). A cancellation
 * arrives on a request of its own, so in-flight calls are registered by (principal, request id) to be
 * aborted, here or on another replica. The principal is the verified subject, or for anonymous callers
 * the client address: request ids are small counters every client repeats, and the address is the one
 * thing an anonymous caller cannot choose for another (behind a proxy, as far as TRUST_PROXY lets
 * Express trust X-Forwarded-For). Anonymous clients sharing one address (NAT) still share a namespace:
 * they are one principal to us.
 */
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createMcpServer } from '../mcp/mcp-server.js';
import { callKey } from '../shared-state/cancellation-bus.js';
import type { DirectToolCalls } from './direct-tool-calls.js';
import { asksForProgress, isCancellation, type JsonRpcMessage } from './json-rpc-message.js';
import type { McpRouteOptions } from './mcp-route.js';
import type { McpPostHandler } from './route-by-era.js';
import type { PrincipalFor } from './session-context.js';

export function statelessPost(
  options: McpRouteOptions,
  principalFor: PrincipalFor,
  direct: DirectToolCalls,
): McpPostHandler {
  const { cancellations } = options.state;
  return async (req, res, next) => {
    try {
      const message = res.locals.message as JsonRpcMessage;
      const principal = principalFor(res);
      if (isCancellation(message)) {
        cancellations.cancel(callKey(principal, message.params?.requestId));
        res.statusCode = 202;
        res.end();
        return;
      }
      const controller = new AbortController();
      const unregister =
        message.id !== undefined
          ? cancellations.register(callKey(principal, message.id), () => controller.abort('cancelled'))
          : () => undefined;
      const answered = await direct(req, res, 'legacy', { controller }).catch((error: unknown) => {
        unregister();
        throw error;
      });
      if (answered) return unregister();
      const server = createMcpServer(options.server, { requestSignal: controller.signal });
      // JSON unless the call asked for progress: then an SSE stream carries its notifications/progress
      // before the response, as a session's call does (the transport answers 406 to a POST whose
      // Accept lacks text/event-stream, so every client that gets here can read one).
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !asksForProgress(message),
      });
      res.on('close', () => {
        unregister();
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    } catch (error) {
      next(error);
    }
  };
}
