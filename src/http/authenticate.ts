/**
 * Bearer authentication for /graphql (SPEC section 4): no Authorization header means anonymous; a header
 * that is not a valid token is a 401, never a silent downgrade to anonymous.
 */
import type { RequestHandler } from 'express';
import type { BearerVerifier } from '../auth/bearer.js';
import { InvalidTokenError } from '../auth/tokens.js';
import { localsOf } from './locals.js';
import { sendError } from './problem.js';

const BEARER = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/i;
const MAX_HEADER_LENGTH = 4096;

export function authenticate(tokens: BearerVerifier): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (header === undefined) return next();
    const match = header.length <= MAX_HEADER_LENGTH ? BEARER.exec(header) : null;
    const reject = (reason: string) => {
      res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", error_description="${reason}"`);
      sendError(res, 401, 'UNAUTHORIZED', reason);
    };
    if (!match?.[1]) return reject('The Authorization header must be "Bearer <token>"');
    try {
      localsOf(res).viewer = await tokens.verify(match[1]);
    } catch (error) {
      if (error instanceof InvalidTokenError) return reject(error.message);
      return next(error);
    }
    next();
  };
}
