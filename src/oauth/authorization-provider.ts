/**
 * The built-in authorization server's grant logic, as the MCP SDK's OAuthServerProvider: the SDK's
 * handlers parse and validate the protocol (S256-only PKCE, registered redirect URIs with any port on
 * loopback, client authentication, RFC 7591 metadata); this file decides what a code and a refresh token
 * are worth. Access tokens are this server's own HS256 JWTs (src/auth/tokens.ts): the resource server
 * verifies them as it verifies every other token, with the granted scopes and the RFC 8707 resource in
 * `aud`. Refresh tokens rotate on every use; presenting a rotated one, or replaying a used code, revokes
 * the whole grant (OAuth 2.1, refresh token rotation and authorization code reuse).
 */
import type { Response } from 'express';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ALL_SCOPES } from '../auth/identity.js';
import type { TokenService } from '../auth/tokens.js';
import type { RoleName } from '../store/tables.js';
import { newSecret, type GrantRecord, type OAuthStore } from './oauth-store.js';
import { refuseRedirectUri } from './redirect-uris.js';

const ACCESS_TOKEN_TTL_SECONDS = 3600;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const CODE_TTL_SECONDS = 60;
const MAX_REDIRECT_URIS = 10;
const MAX_CLIENT_JSON_CHARS = 8192;
/** Longer than any client's state needs; a longer one would not fit the sealed sign-in form. */
const MAX_STATE_CHARS = 2048;
/** An S256 challenge is the base64url SHA-256 of the verifier (RFC 7636, section 4.2): 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** An authorization request that passed the SDK's checks and ours, waiting for sign-in and consent. */
export interface PendingAuthorization {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  state?: string;
}

export interface AuthorizationProviderOptions {
  store: OAuthStore;
  tokens: TokenService;
  /** The account's current role; undefined once the account is gone. */
  roleOf(userId: number): Promise<RoleName | undefined>;
  /** This server's canonical resource (…/mcp) as the request reached it. */
  resourceOf(res: Response): string;
  /** Shows the sign-in page for a checked request. */
  showSignIn(res: Response, pending: PendingAuthorization): void;
  now?: () => Date;
}

export interface AuthorizationProvider extends OAuthServerProvider {
  /**
   * Saves `code` (derived from the consent form) for a request the user approved; the caller redirects
   * with it. The same form posted again gets the same code while it is unspent and unexpired (a double
   * click), and false once it is spent: a consent form mints one code, never a second grant.
   */
  issueCode(pending: PendingAuthorization, userId: number, code: string): Promise<boolean>;
}

/** The scopes asked for, all of ours when none are named; refuses one we do not grant. */
export function requestedScopes(asked: readonly string[]): string[] {
  const named = asked.filter(Boolean);
  if (named.length === 0) return [...ALL_SCOPES];
  const unknown = named.filter((scope) => !(ALL_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) throw new InvalidScopeError(`Unknown scope: ${unknown.join(' ')}`);
  return [...new Set(named)];
}

export function createAuthorizationProvider(options: AuthorizationProviderOptions): AuthorizationProvider {
  const { store, tokens } = options;
  const now = options.now ?? (() => new Date());
  const later = (seconds: number) => new Date(now().getTime() + seconds * 1000).toISOString();
  const expired = (record: GrantRecord) => record.expiresAt <= now().toISOString();

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (clientId) => store.getClient(clientId),
    async registerClient(client) {
      // Bounded: each registration is stored, and a cap of them fills the registry's budget.
      if (client.redirect_uris.length > MAX_REDIRECT_URIS)
        throw new InvalidClientMetadataError(`At most ${MAX_REDIRECT_URIS} redirect_uris may be registered`);
      if (JSON.stringify(client).length > MAX_CLIENT_JSON_CHARS)
        throw new InvalidClientMetadataError(
          `The client metadata is over ${MAX_CLIENT_JSON_CHARS} characters`,
        );
      const refusal = client.redirect_uris.map(refuseRedirectUri).find(Boolean);
      if (refusal) throw new InvalidClientMetadataError(refusal);
      const grants = client.grant_types ?? ['authorization_code'];
      if (grants.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token'))
        throw new InvalidClientMetadataError(
          'Only the authorization_code and refresh_token grants are supported',
        );
      const full = client as OAuthClientInformationFull;
      if (!(await store.registerClient(full, now())))
        throw new TooManyRequestsError('This server holds as many client registrations as it allows');
      return full;
    },
  };

  async function issueTokens(
    record: Omit<GrantRecord, 'expiresAt' | 'usedAt'>,
    scopes: string[],
  ): Promise<OAuthTokens> {
    const role = await options.roleOf(record.userId);
    if (!role) throw new InvalidGrantError('The account of this grant no longer exists');
    const refreshToken = newSecret();
    await store.saveRefreshToken(
      refreshToken,
      { ...record, expiresAt: later(REFRESH_TOKEN_TTL_SECONDS) },
      now(),
    );
    return {
      access_token: await tokens.issue(record.userId, role, {
        scopes,
        resource: record.resource,
        ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
      }),
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }

  async function liveCode(client: OAuthClientInformationFull, code: string) {
    const record = await store.findCode(code);
    if (!record || record.clientId !== client.client_id || expired(record))
      throw new InvalidGrantError('The authorization code is not valid');
    if (record.usedAt) {
      // A second exchange of a code means it leaked: what the first exchange obtained is revoked too.
      await store.revokeGrant(record.grantId);
      throw new InvalidGrantError('The authorization code was already used');
    }
    return record;
  }

  return {
    clientsStore,

    async authorize(client, params: AuthorizationParams, res) {
      const resource = options.resourceOf(res);
      if (params.resource && params.resource.href !== resource)
        throw new InvalidTargetError(`This server issues tokens for ${resource} only`);
      if (params.state !== undefined && params.state.length > MAX_STATE_CHARS)
        throw new InvalidRequestError(`state must be at most ${MAX_STATE_CHARS} characters`);
      if (!S256_CHALLENGE.test(params.codeChallenge))
        throw new InvalidRequestError('code_challenge must be an S256 challenge: 43 base64url characters');
      options.showSignIn(res, {
        clientId: client.client_id,
        clientName: client.client_name ?? client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        scopes: requestedScopes(params.scopes ?? []),
        resource,
        state: params.state,
      });
    },

    async issueCode(pending, userId, code) {
      const saved = await store.saveCode(
        code,
        {
          clientId: pending.clientId,
          userId,
          grantId: newSecret(),
          redirectUri: pending.redirectUri,
          codeChallenge: pending.codeChallenge,
          scope: pending.scopes.join(' '),
          resource: pending.resource,
          expiresAt: later(CODE_TTL_SECONDS),
          usedAt: null,
        },
        now(),
      );
      if (saved) return true;
      const record = await store.findCode(code);
      return record !== undefined && record.usedAt === null && !expired(record);
    },

    async challengeForAuthorizationCode(client, code) {
      return (await liveCode(client, code)).codeChallenge;
    },

    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      const record = await liveCode(client, code);
      if (!(await store.useCode(code, now()))) {
        await store.revokeGrant(record.grantId);
        throw new InvalidGrantError('The authorization code was already used');
      }
      if (redirectUri !== undefined && redirectUri !== record.redirectUri)
        throw new InvalidGrantError('redirect_uri does not match the authorization request');
      if (resource && resource.href !== record.resource)
        throw new InvalidTargetError('resource does not match the authorization request');
      return issueTokens(record, record.scope.split(' '));
    },

    async exchangeRefreshToken(client, refreshToken, scopes, resource) {
      const record = await store.findRefreshToken(refreshToken);
      if (!record || record.clientId !== client.client_id || expired(record))
        throw new InvalidGrantError('The refresh token is not valid');
      if (resource && resource.href !== record.resource)
        throw new InvalidTargetError('resource does not match the grant');
      const granted = record.scope.split(' ');
      if (scopes?.some((scope) => !granted.includes(scope)))
        throw new InvalidScopeError('A refresh cannot widen the scopes the user granted');
      if (record.usedAt || !(await store.useRefreshToken(refreshToken, now()))) {
        // A rotated token presented again: one of the two holders is not the client. End the grant.
        await store.revokeGrant(record.grantId);
        throw new InvalidGrantError('The refresh token was already used');
      }
      return issueTokens(record, scopes && scopes.length > 0 ? scopes : granted);
    },

    async verifyAccessToken(token) {
      try {
        const identity = await tokens.verify(token);
        return {
          token,
          clientId: identity.subject,
          scopes: [...identity.scopes],
          expiresAt: identity.expiresAt,
        };
      } catch {
        throw new InvalidTokenError('The access token is not valid');
      }
    },

    async revokeToken(client, request) {
      const record = await store.findRefreshToken(request.token);
      // RFC 7009: an unknown token, or an access token (a JWT that expires on its own), is answered 200.
      if (record && record.clientId === client.client_id) await store.revokeGrant(record.grantId);
    },
  };
}
