/**
 * Answers a `tools/call` whose token lacks a scope the tool needs as the MCP authorization spec
 * (2025-11-25, "Scope Challenge Handling") says: HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"`, so a client
 * can step up its authorization and retry. The scopes are the ones the schema's @auth rules give the
 * tool's operation (derived at boot); the executor enforces the same rules per field, so this only turns
 * the same refusal into the transport's answer. Anonymous callers pass: a write tool answers them with an
 * UNAUTHORIZED tool error (docs/contract.md, MCP tools). The scope guard (mcp-guards.ts) answers it.
 */
import { ALL_SCOPES, type Identity } from '../auth/identity.js';
import { missingScopes } from '../graphql/auth-directives.js';
import type { OperationCatalogue } from '../operations/operation-catalogue.js';

type Message = { method?: unknown; id?: unknown; params?: { name?: unknown } };

export interface ScopeRefusal {
  missing: string[];
  /** What the token has plus what the tool needs. */
  wanted: string[];
  description: string;
}

/** Why a viewer may not call the tool this message names, or undefined when it may (or it is no call). */
export function scopeRefusal(
  catalogue: OperationCatalogue,
  viewer: Identity | null,
  message: Message,
): ScopeRefusal | undefined {
  if (!viewer || message.method !== 'tools/call' || typeof message.params?.name !== 'string')
    return undefined;
  const required = catalogue.current().byName.get(message.params.name)?.requiredScopes ?? [];
  const missing = missingScopes(viewer, required);
  if (missing.length === 0) return undefined;
  // The spec recommends asking for what the token has plus what the tool needs, so that re-authorizing
  // for this tool does not lose the scopes other tools need.
  const wanted = ALL_SCOPES.filter((scope) => required.includes(scope) || viewer.scopes.includes(scope));
  const description = `This token lacks the scope ${missing.join(', ')} needed by ${message.params.name}`;
  return { missing, wanted, description };
}
