/** A session's DELETE: ends it for its owner (a foreign or unknown one is 404), on every replica. */
import type { RequestHandler } from 'express';
import { refusalOf } from '../transport-refusals.js';
import { writeMcpRefusal } from './write-refusal.js';
import { sessionStateUnavailable, type SessionContext } from './session-context.js';

export function sessionDelete(context: SessionContext): RequestHandler {
  const { options, subjectOf } = context;
  const { sessions } = options.state;
  return async (req, res) => {
    const sessionId = req.get('mcp-session-id');
    if (sessionId === undefined) return writeMcpRefusal(res, refusalOf('mcp.session-id-required'));
    let deleted: boolean;
    try {
      deleted = await sessions.delete(sessionId, subjectOf(res));
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if (!deleted) return writeMcpRefusal(res, refusalOf('mcp.session-not-found'));
    res.status(200).end();
  };
}
