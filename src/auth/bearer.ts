/**
 * Verifies a bearer token from either source this server trusts: its own HS256 tokens, or (when
 * configured) an external OAuth 2.1 issuer's tokens checked against the issuer's JWKS with an algorithm
 * allowlist, the issuer, our canonical /mcp URL as audience, and a required `exp` (docs/contract.md, Identity).
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { ALL_SCOPES, EXTERNAL_SUBJECT_PREFIX, type Identity } from './identity.js';
import { InvalidTokenError, describeJoseError, type TokenService } from './tokens.js';

export interface ExternalIssuer {
  issuer: string;
  jwksUrl: string;
  algorithms: string[];
  /** Our canonical resource URL (…/mcp): tokens minted for anything else are refused. */
  audience: string;
}

export interface BearerVerifier {
  verify(token: string): Promise<Identity>;
}

const CLOCK_TOLERANCE_SECONDS = 30;
/** Usernames are at most 50 characters; a longer `sub` is shortened to a stable hash. */
const MAX_SUBJECT_LENGTH = 50;

function externalSubject(sub: string): string {
  const subject = `${EXTERNAL_SUBJECT_PREFIX}${sub}`;
  if (subject.length <= MAX_SUBJECT_LENGTH && /^[\x21-\x7e]+$/.test(sub)) return subject;
  return `${EXTERNAL_SUBJECT_PREFIX}${createHash('sha256').update(sub).digest('hex').slice(0, 40)}`;
}

export function createBearerVerifier(own: TokenService, external?: ExternalIssuer): BearerVerifier {
  if (!external) return own;
  const jwks = createRemoteJWKSet(new URL(external.jwksUrl), {
    timeoutDuration: 5000,
    cooldownDuration: 30000,
  });
  return {
    async verify(token) {
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        throw new InvalidTokenError('The token is malformed or not valid');
      }
      if (issuer !== external.issuer) return own.verify(token);
      let payload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          algorithms: external.algorithms,
          issuer: external.issuer,
          audience: external.audience,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        }));
      } catch (error) {
        throw new InvalidTokenError(describeJoseError(error));
      }
      // jose checks that `sub` is present, not that it is a string: a number or "" is a bad token (401).
      if (typeof payload.sub !== 'string' || payload.sub === '')
        throw new InvalidTokenError("The token's sub claim is not valid");
      if (typeof payload.exp !== 'number') throw new InvalidTokenError("The token's exp claim is not valid");
      const granted = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      return {
        subject: externalSubject(payload.sub),
        userId: null,
        // Roles are ours to grant: an external token is never an administrator here.
        role: 'USER',
        scopes: ALL_SCOPES.filter((scope) => granted.includes(scope)),
        expiresAt: payload.exp,
      };
    },
  };
}
