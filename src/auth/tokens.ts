/**
 * Issues and verifies this server's HS256 tokens with jose. Verification pins the algorithm, issuer and
 * audience and requires `exp`, because jose alone would accept a token without one. `sub` is the
 * account's immutable id, never its username, so a re-registered name never inherits old tokens
 * (docs/contract.md, Identity); any claim of the wrong shape is an InvalidTokenError (401), never an internal error.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { ALL_SCOPES, type Identity } from './identity.js';
import type { RoleName } from './identity.js';

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/**
 * What an OAuth grant narrows (src/oauth/): the granted scopes (a `scope` claim), the resource the token
 * is for (RFC 8707: added to `aud` beside this server's own audience) and a shorter lifetime.
 */
interface TokenGrant {
  scopes: readonly string[];
  resource: string;
  ttlSeconds: number;
}

export interface TokenService {
  /** A token for the account `userId`: `sub` is the id as a decimal string. */
  issue(userId: number, role: RoleName, grant?: TokenGrant): Promise<string>;
  /** Resolves the identity, or throws InvalidTokenError with a reason safe to show. */
  verify(token: string): Promise<Identity>;
}

export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

const ALGORITHM = 'HS256';
const CLOCK_TOLERANCE_SECONDS = 30;
/** A positive decimal integer without leading zeros, as `sub` is written at issue time. */
const ACCOUNT_ID = /^[1-9][0-9]{0,9}$/;
/** Account ids are 32-bit integer columns in both stores. */
const MAX_ACCOUNT_ID = 2_147_483_647;

/** The account id a `sub` claim names, or undefined when it is not one (a number, empty, a username…). */
function accountIdOf(sub: unknown): number | undefined {
  if (typeof sub !== 'string' || !ACCOUNT_ID.test(sub)) return undefined;
  const id = Number(sub);
  return id <= MAX_ACCOUNT_ID ? id : undefined;
}

export function createTokenService(settings: TokenSettings): TokenService {
  const key = new TextEncoder().encode(settings.secret);
  return {
    async issue(userId, role, grant) {
      return new SignJWT(grant ? { role, scope: grant.scopes.join(' ') } : { role })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(String(userId))
        .setIssuer(settings.issuer)
        .setAudience(grant ? [grant.resource, settings.audience] : settings.audience)
        .setIssuedAt()
        .setExpirationTime(`${grant?.ttlSeconds ?? settings.ttlSeconds}s`)
        .sign(key);
    },
    async verify(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: settings.issuer,
          audience: settings.audience,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        }));
      } catch (error) {
        throw new InvalidTokenError(describeJoseError(error));
      }
      const userId = accountIdOf(payload.sub);
      if (userId === undefined) throw new InvalidTokenError("The token's sub claim is not valid");
      const role = payload.role;
      if (role !== 'USER' && role !== 'ADMIN') throw new InvalidTokenError('The token carries no valid role');
      if (typeof payload.exp !== 'number') throw new InvalidTokenError("The token's exp claim is not valid");
      // A token from an OAuth grant carries the scopes the user consented to; a sign-in token carries all.
      const scopes =
        typeof payload.scope === 'string'
          ? ALL_SCOPES.filter((scope) => (payload.scope as string).split(' ').includes(scope))
          : ALL_SCOPES;
      return { subject: String(userId), userId, role, scopes, expiresAt: payload.exp };
    },
  };
}

export function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `The token's ${error.claim} claim is not valid`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is not valid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token algorithm is not allowed';
  return 'The token is malformed or not valid';
}
