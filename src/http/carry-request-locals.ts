/**
 * Hands what the request context knows to MCP tool calls the way the SDK hands identity: as `req.auth`,
 * which the transport passes to handlers as `extra.authInfo`. It carries the client address (rate limits
 * count anonymous calls by it) and the request's logger (already bound to its requestId, so audit lines
 * join the access line). Anonymous requests get an AuthInfo too, carrying no identity and no scopes.
 */
import type { Request, RequestHandler } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { localsOf } from './locals.js';

export const carryRequestLocals: RequestHandler = (req, res, next) => {
  const request = req as Request & { auth?: AuthInfo };
  const { clientAddress, logger } = localsOf(res);
  request.auth = request.auth
    ? { ...request.auth, extra: { ...request.auth.extra, clientAddress, logger } }
    : { token: '', clientId: '', scopes: [], extra: { identity: null, clientAddress, logger } };
  next();
};
