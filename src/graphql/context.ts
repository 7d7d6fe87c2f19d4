/** What every resolver receives: the verified caller, the store, per-request loaders and a logger. */
import type { Identity } from '../auth/identity.js';
import type { TokenService } from '../auth/tokens.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import { forbidden, unauthorized } from '../errors.js';
import type { User } from '../store/tables.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface GraphQLContext {
  /** The verified caller; null when anonymous. Never the raw token. */
  viewer: Identity | null;
  store: Store;
  tokens: TokenService;
  loaders: Loaders;
  logger: Logger;
  requestId: string;
  /** Aborted when the caller cancels or its deadline passes; writes check it before committing. */
  signal?: AbortSignal;
  /** Reports a step of a long operation to a caller that asked for progress (MCP progressToken). */
  reportProgress?: (message: string) => void;
}

export interface ContextDependencies {
  store: Store;
  tokens: TokenService;
}

export function createContext(
  deps: ContextDependencies,
  request: Pick<GraphQLContext, 'viewer' | 'logger' | 'requestId' | 'signal' | 'reportProgress'>,
): GraphQLContext {
  return { ...deps, ...request, loaders: createLoaders(deps.store) };
}

/**
 * The signed-in user's row, or UNAUTHORIZED naming the operation. A token whose user no longer exists
 * is treated as no sign-in at all.
 */
export async function requireUser(context: GraphQLContext, action: string): Promise<User> {
  if (!context.viewer) throw unauthorized(action);
  const user = await context.loaders.userByUsername.load(context.viewer.subject);
  if (!user) throw unauthorized(action);
  return user;
}

export async function requireAdmin(context: GraphQLContext, action: string): Promise<User> {
  const user = await requireUser(context, action);
  if (user.role !== 'ADMIN') throw forbidden(action);
  return user;
}
