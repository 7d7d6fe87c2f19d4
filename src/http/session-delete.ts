/** A session's DELETE: ends it for its owner (a foreign or unknown one is 404), on every replica. */
import { refusalOf } from '../transport-refusals.js';
import { writeMcpRefusal } from './write-refusal.js';
import type { McpPostHandler } from './route-by-era.js';
import { sessionStateUnavailable, type SessionContext } from './session-context.js';

export function sessionDelete(context: SessionContext): McpPostHandler {
  const { options, subjectOf } = context;
  const { sessions } = options.state;
  return async (req, res) => {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header.join(', ') : header;
    if (sessionId === undefined) return writeMcpRefusal(res, refusalOf('mcp.session-id-required'));
    let deleted: boolean;
    try {
      deleted = await sessions.delete(sessionId, subjectOf(res));
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if (!deleted) return writeMcpRefusal(res, refusalOf('mcp.session-not-found'));
    res.statusCode = 200;
    res.end();
  };
}
