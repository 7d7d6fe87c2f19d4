/** The roles an account can have (the store keeps them; tokens and `@auth(requires:)` name them). */
export type RoleName = 'USER' | 'ADMIN';

/**
 * Who is calling, as verified from a bearer token. This value, never the raw token, is handed down to
 * resolvers (docs/contract.md, Identity).
 */
export interface Identity {
  /**
   * Who the principal is, stable for its lifetime: the account id (the token's `sub`) for tokens this
   * server issues, `oauth:<sub>` for an external issuer's. Binds sessions and names the caller in audit lines.
   */
  subject: string;
  /**
   * The local account id for tokens this server issues; null for an external identity, whose account
   * (named after its subject) is created on first use.
   */
  userId: number | null;
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
  // Ad-hoc GraphQL through the schema tools (MCP_SCHEMA_TOOLS): the fields' own scopes still apply.
  'graphql:execute',
] as const;
