/**
 * A session's GET: with Last-Event-ID, the resume of a cut call stream (what it missed, then on to its
 * response, from whichever replica stored it); without, the standalone stream (keepalives and
 * tools/list_changed), one per session on this replica, ending with its session.
 */
import type { RequestHandler, Response } from 'express';
import { followStream } from '../shared-state/event-store.js';
import type { SessionHold } from '../shared-state/session-store.js';
import { watchClose } from './close-watch.js';
import { localsOf } from './locals.js';
import { sendJsonRpcError } from './send-json-rpc-error.js';
import { KEEPALIVE_MS, sessionStateUnavailable, type SessionContext } from './session-context.js';
import { KEEPALIVE_FRAME, messageFrame, SSE_HEADERS } from './sse-frames.js';

export function sessionStreams(context: SessionContext): RequestHandler {
  const { options, subjectOf, listening } = context;
  const { sessions, events } = options.state;

  /** A Last-Event-ID resume: replay what the cut stream missed, then follow it to its response. */
  const resume = async (res: Response, sessionId: string, lastEventId: string, hold: SessionHold) => {
    const parsed = events.parseEventId(lastEventId);
    let info = undefined as Awaited<ReturnType<typeof events.info>>;
    try {
      if (parsed) info = await events.info(parsed.streamId);
    } catch (error) {
      hold.release();
      return sessionStateUnavailable(res, error);
    }
    const life = watchClose(res);
    if (life.closed) return hold.release();
    if (!parsed || !info || info.sessionId !== sessionId) {
      hold.release();
      return sendJsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: Last-Event-ID names no resumable stream of this session (malformed, unknown, expired, or another session’s)',
      );
    }
    const gone = new AbortController();
    let keepalive: NodeJS.Timeout | undefined;
    life.onClose(() => {
      gone.abort();
      clearInterval(keepalive);
      hold.release();
    });
    try {
      const outcome = await followStream(
        events,
        { id: parsed.streamId, after: parsed.position, info },
        {
          open() {
            res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
            res.flushHeaders();
            keepalive = setInterval(() => res.write(KEEPALIVE_FRAME), KEEPALIVE_MS);
          },
          send({ id, message }) {
            res.write(messageFrame(JSON.stringify(message), id));
          },
        },
        gone.signal,
      );
      if (outcome === 'complete') {
        return sendJsonRpcError(
          res,
          409,
          -32000,
          'Conflict: this stream is complete; its response came before Last-Event-ID',
        );
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) return sessionStateUnavailable(res, error);
      localsOf(res).logger.warn({ err: error }, 'following a resumed MCP stream failed');
      res.end();
    }
  };

  /** The standalone GET stream: keepalives and tools/list_changed; it ends with its session. */
  const listen = (res: Response, sessionId: string, hold: SessionHold) => {
    if (listening.has(sessionId)) {
      hold.release();
      return sendJsonRpcError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    }
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': sessionId });
    res.flushHeaders();
    listening.set(sessionId, res);
    const keepalive = setInterval(() => res.write(KEEPALIVE_FRAME), KEEPALIVE_MS);
    watchClose(res).onClose(() => {
      clearInterval(keepalive);
      if (listening.get(sessionId) === res) listening.delete(sessionId);
      hold.release();
    });
  };

  return async (req, res, next) => {
    try {
      const sessionId = req.get('mcp-session-id');
      if (sessionId === undefined)
        return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      if (!req.get('accept')?.includes('text/event-stream'))
        return sendJsonRpcError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
      // Watched before the store is awaited: a client gone during the await must not leave it held.
      const life = watchClose(res);
      let found: Awaited<ReturnType<typeof sessions.use>>;
      try {
        found = await sessions.use(sessionId, subjectOf(res), life.live);
      } catch (error) {
        return sessionStateUnavailable(res, error);
      }
      if (!found) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      if (life.closed) return found.hold.release();
      const lastEventId = req.get('last-event-id');
      if (lastEventId !== undefined) return await resume(res, sessionId, lastEventId, found.hold);
      listen(res, sessionId, found.hold);
    } catch (error) {
      next(error);
    }
  };
}
