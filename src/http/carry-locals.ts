/**
 * Hands what the request context knows to MCP tool calls the way the SDK hands identity: as `req.auth`,
 * which the transport passes to handlers as `extra.authInfo`. It carries the client address (rate limits
 * count anonymous calls by it), the request's logger (already bound to its requestId) and its access
 * line's `annotate`, on which a tool call records its outcome. Anonymous requests get an AuthInfo too, carrying no identity and no scopes.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { RequestLocals } from './locals.js';

/** The one implementation: the /mcp handler calls it for every request that passed its guards. */
export function carryLocals(req: IncomingMessage & { auth?: AuthInfo }, locals: RequestLocals): void {
  const { clientAddress, logger, annotate } = locals;
  // The request's own AuthInfo (admitIdentity made it for this request) gains the fields in place: a
  // copy of it per request bought nothing.
  if (req.auth) req.auth.extra = { ...req.auth.extra, clientAddress, logger, annotate };
  else
    req.auth = {
      token: '',
      clientId: '',
      scopes: [],
      extra: { identity: null, clientAddress, logger, annotate },
    };
}
