/**
 * Whether a caller can call a tool, from the access its operation needs (required-access.ts), by the
 * same rules the executor enforces per field (graphql/auth-directives.ts): a tool that needs a role is
 * for signed-in callers (ADMIN: administrators only); a signed-in caller's token must carry every
 * scope the tool needs; anonymous callers are not asked for scopes. tools/list shows a caller these
 * tools only (MCP_TOOLS_VISIBILITY=caller); calling another still answers as the rules say.
 */
import type { Identity } from '../auth/identity.js';
import { missingScopes } from '../graphql/auth-directives.js';
import type { CuratedOperation } from './load-operations.js';

export function isToolVisibleTo(
  operation: Pick<CuratedOperation, 'requiredRole' | 'requiredScopes'>,
  viewer: Identity | null,
): boolean {
  const { requiredRole } = operation;
  if (requiredRole && !viewer) return false;
  if (requiredRole === 'ADMIN' && viewer?.role !== 'ADMIN') return false;
  return missingScopes(viewer, operation.requiredScopes).length === 0;
}
