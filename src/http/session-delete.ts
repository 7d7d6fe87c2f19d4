/** A session's DELETE: ends it for its owner (a foreign or unknown one is 404), on every replica. */
import type { RequestHandler } from 'express';
import { sendJsonRpcError } from './send-json-rpc-error.js';
import { sessionStateUnavailable, type SessionContext } from './session-context.js';

export function sessionDelete(context: SessionContext): RequestHandler {
  const { options, subjectOf } = context;
  const { sessions } = options.state;
  return async (req, res) => {
    const sessionId = req.get('mcp-session-id');
    if (sessionId === undefined)
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let deleted: boolean;
    try {
      deleted = await sessions.delete(sessionId, subjectOf(res));
    } catch (error) {
      return sessionStateUnavailable(res, error);
    }
    if (!deleted) return sendJsonRpcError(res, 404, -32001, 'Session not found');
    res.status(200).end();
  };
}
