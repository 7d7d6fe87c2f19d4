/**
 * Answers a `tools/call` whose token lacks a scope the tool needs as the MCP authorization spec
 * (2025-11-25, "Scope Challenge Handling") says: HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"`, so a client
 * can step up its authorization and retry. The scopes are the ones the schema's @auth rules give the
 * tool's operation (derived at boot); the executor enforces the same rules per field, so this only turns
 * the same refusal into the transport's answer. Anonymous callers pass: a write tool answers them with an
 * UNAUTHORIZED tool error (SPEC section 6). Runs after authentication and body parsing.
 */
import type { Request, RequestHandler } from 'express';
import { ALL_SCOPES } from '../auth/identity.js';
import { missingScopes } from '../graphql/auth-directives.js';
import type { OperationCatalogue } from '../operations/operation-catalogue.js';
import { localsOf } from './locals.js';
import { sendJsonRpcError } from './send-json-rpc-error.js';

export function insufficientScope(
  catalogue: OperationCatalogue,
  resourceMetadataUrl: (req: Request) => string,
): RequestHandler {
  return (req, res, next) => {
    const viewer = localsOf(res).viewer ?? null;
    const message = res.locals.message as { method?: unknown; id?: unknown; params?: { name?: unknown } };
    if (!viewer || message.method !== 'tools/call' || typeof message.params?.name !== 'string') return next();
    const required = catalogue.current().byName.get(message.params.name)?.requiredScopes ?? [];
    const missing = missingScopes(viewer, required);
    if (missing.length === 0) return next();
    // The spec recommends asking for what the token has plus what the tool needs, so that re-authorizing
    // for this tool does not lose the scopes other tools need.
    const wanted = ALL_SCOPES.filter((scope) => required.includes(scope) || viewer.scopes.includes(scope));
    const description = `This token lacks the scope ${missing.join(', ')} needed by ${message.params.name}`;
    sendJsonRpcError(res, 403, -32001, `Forbidden: ${description}`, {
      headers: {
        'WWW-Authenticate':
          `Bearer error="insufficient_scope", scope="${wanted.join(' ')}", ` +
          `resource_metadata="${resourceMetadataUrl(req)}", error_description="${description}"`,
      },
      data: { requiredScopes: missing },
      id: message.id ?? null,
    });
  };
}
