/** What our middleware leaves on `res.locals` for later handlers, typed in one place. */
import type { Response } from 'express';
import type { Identity } from '../auth/identity.js';
import type { Logger } from '../logger.js';

export interface RequestLocals {
  requestId: string;
  logger: Logger;
  /** Set by the authenticate middleware: null for an anonymous request. */
  viewer: Identity | null;
  /** The client's address: the socket's, or as trusted proxies report it (TRUST_PROXY). */
  clientAddress: string;
}

export function localsOf(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}
