import type { RoleName } from '../store/tables.js';

/**
 * Who is calling, as verified from a bearer token. This value, never the raw token, is handed down to
 * resolvers (SPEC section 4).
 */
export interface Identity {
  /** The token's `sub`: the username for tokens this server issues. */
  subject: string;
  role: RoleName;
  /** Granted scopes; tokens this server issues carry every scope. */
  scopes: readonly string[];
  /** Unix seconds at which the token stops being valid. */
  expiresAt: number;
}

/**
 * Subjects of tokens from an external issuer carry this prefix. Local usernames cannot contain ':',
 * so an external `sub` can never act as a local account (an issuer's "admin" is not our admin).
 */
export const EXTERNAL_SUBJECT_PREFIX = 'oauth:';

export const ALL_SCOPES = [
  'movies:read',
  'reviews:read',
  'reviews:write',
  'watchlist:read',
  'watchlist:write',
] as const;
