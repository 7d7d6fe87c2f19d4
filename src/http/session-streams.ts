/**
 * A session's GET: with Last-Event-ID, the resume of a cut call stream (what it missed, then on to its
 * response, from whichever replica stored it); without, the standalone stream (keepalives and
 * tools/list_changed), one per session on this replica, ending with its session.
 */
import { followStream } from '../shared-state/event-store.js';
import type { SessionHold } from '../shared-state/session-store.js';
import { watchClose } from './close-watch.js';
import { localsOf, type ResponseWithLocals } from './locals.js';
import type { McpPostHandler } from './route-by-era.js';
import { refusalOf } from '../transport-refusals.js';
import { writeMcpRefusal } from './write-refusal.js';
import { KEEPALIVE_MS, sessionStateUnavailable, type SessionContext } from './session-context.js';
import { KEEPALIVE_FRAME, messageFrame, SSE_HEADERS } from './sse-frames.js';

/** A header's one value (a repeated one as node joins it). */
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export function sessionStreams(context: SessionContext): McpPostHandler {
  const { options, subjectOf, listening } = context;
  const { sessions, events } = options.state;

  /** A Last-Event-ID resume: replay what the cut stream missed, then follow it to its response. */
  const resume = async (
    res: ResponseWithLocals,
    sessionId: string,
    lastEventId: string,
    hold: SessionHold,
  ) => {
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
      return writeMcpRefusal(res, refusalOf('mcp.last-event-id-unknown'));
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
        return writeMcpRefusal(res, refusalOf('mcp.stream-complete'));
      }
      res.end();
    } catch (error) {
      if (!res.headersSent) return sessionStateUnavailable(res, error);
      localsOf(res).logger.warn({ err: error }, 'following a resumed MCP stream failed');
      res.end();
    }
  };

  /** The standalone GET stream: keepalives and tools/list_changed; it ends with its session. */
  const listen = (res: ResponseWithLocals, sessionId: string, hold: SessionHold) => {
    if (listening.has(sessionId)) {
      hold.release();
      return writeMcpRefusal(res, refusalOf('mcp.stream-conflict'));
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
      const sessionId = header(req.headers['mcp-session-id']);
      if (sessionId === undefined) return writeMcpRefusal(res, refusalOf('mcp.session-id-required'));
      if (!header(req.headers.accept)?.includes('text/event-stream'))
        return writeMcpRefusal(res, refusalOf('mcp.stream-not-sse'));
      // Watched before the store is awaited: a client gone during the await must not leave it held.
      const life = watchClose(res);
      let found: Awaited<ReturnType<typeof sessions.use>>;
      try {
        found = await sessions.use(sessionId, subjectOf(res), life.live);
      } catch (error) {
        return sessionStateUnavailable(res, error);
      }
      if (!found) return writeMcpRefusal(res, refusalOf('mcp.session-not-found'));
      if (life.closed) return found.hold.release();
      const lastEventId = header(req.headers['last-event-id']);
      if (lastEventId !== undefined) return await resume(res, sessionId, lastEventId, found.hold);
      listen(res, sessionId, found.hold);
    } catch (error) {
      next(error);
    }
  };
}
