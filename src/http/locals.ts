/** What our middleware leaves on `res.locals` for later handlers, typed in one place. */
import type { ServerResponse } from 'node:http';
import type { Identity } from '../auth/identity.js';
import type { Logger } from '../logger.js';

export interface RequestLocals {
  requestId: string;
  logger: Logger;
  /** Set by the authenticate middleware: null for an anonymous request. */
  viewer: Identity | null;
  /** The client's address: the socket's, or as trusted proxies report it (TRUST_PROXY). */
  clientAddress: string;
  /**
   * Adds fields to this request's access line (a tool call's outcome, so that one line says what the
   * call did); false when that line is written already or is not coming (the response ended or was cut).
   */
  annotate(fields: Record<string, unknown>): boolean;
}

/** A response carrying `locals`: Express's, or one a handler of its own began (beginRequest). */
export type ResponseWithLocals = ServerResponse & { locals: Record<string, unknown> };

export function localsOf(res: { locals: Record<string, unknown> }): RequestLocals {
  return res.locals as unknown as RequestLocals;
}
