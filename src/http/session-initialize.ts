/**
 * A session's initialize: the cap decision and the new record are one atomic step in the session store
 * (capped per principal and in total: 429 or 503), then the SDK's transport answers the handshake and
 * hands the client its Mcp-Session-Id.
 */
import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { createMcpServer } from '../mcp/mcp-server.js';
import type { McpRequest } from './direct-tool-calls.js';
import type { JsonRpcMessage } from './json-rpc-message.js';
import type { ResponseWithLocals } from './locals.js';
import { refusalOf } from '../transport-refusals.js';
import { retryable, writeMcpRefusal } from './write-refusal.js';
import { watchClose } from './close-watch.js';
import { carrySessionId, sessionStateUnavailable, type SessionContext } from './session-context.js';

export type SessionInitialize = (
  req: McpRequest,
  res: ResponseWithLocals,
  message: JsonRpcMessage,
) => Promise<void>;

export function sessionInitialize(context: SessionContext): SessionInitialize {
  const { options, subjectOf, principalFor } = context;
  const { sessions } = options.state;
  return async (req, res, message) => {
    // Watched before the store is awaited: a client gone during the await must not leave a session held.
    const life = watchClose(res);
    const params = message.params as { protocolVersion: string; capabilities?: object; clientInfo?: object };
    // The id is chosen here so that the cap decision and the record are one atomic step in the store;
    // the SDK's transport then hands it to the client as Mcp-Session-Id.
    const id = randomUUID();
    let opened: Awaited<ReturnType<typeof sessions.open>>;
    try {
      opened = await sessions.open(
        {
          id,
          owner: subjectOf(res),
          principal: principalFor(res),
          protocolVersion: params.protocolVersion,
          clientCapabilities: { ...params.capabilities },
          clientInfo: { ...params.clientInfo },
        },
        life.live,
      );
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if ('refusal' in opened) {
      if (opened.refusal === 'principal-cap') {
        return writeMcpRefusal(res, retryable(refusalOf('mcp.sessions-per-client')));
      }
      return writeMcpRefusal(res, retryable(refusalOf('mcp.sessions-busy')));
    }
    const { hold } = opened;
    if (life.closed) {
      // The client went away while the store decided: nobody will ever learn this session's id.
      hold.release();
      void sessions.discard(id).catch(() => undefined);
      return;
    }
    carrySessionId(req, id);
    const server = createMcpServer(options.server, { listChanged: options.server.catalogue.watching });
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    life.onClose(() => {
      hold.release();
      // The transport refused the initialize (a wrong Accept, say): no session came of it.
      if (transport.sessionId === undefined) void sessions.discard(id).catch(() => undefined);
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };
}
