/**
 * Hands the client address to MCP tool calls the way the SDK hands identity: as `req.auth`, which the
 * transport passes to handlers as `extra.authInfo`. Anonymous requests get an AuthInfo too, carrying no
 * identity and no scopes, so their tool calls are counted per address like anonymous /graphql requests.
 */
import type { Request, RequestHandler } from 'express';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { localsOf } from './locals.js';

export const carryClientAddress: RequestHandler = (req, res, next) => {
  const request = req as Request & { auth?: AuthInfo };
  const { clientAddress } = localsOf(res);
  request.auth = request.auth
    ? { ...request.auth, extra: { ...request.auth.extra, clientAddress } }
    : { token: '', clientId: '', scopes: [], extra: { identity: null, clientAddress } };
  next();
};
