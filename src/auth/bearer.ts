/**
 * Verifies a bearer token from either source this server trusts: its own HS256 tokens, or (when
 * configured) an external OAuth 2.1 issuer's tokens checked against the issuer's JWKS with an algorithm
 * allowlist, the issuer, our canonical /mcp URL as audience, and a required `exp` (SPEC section 4).
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { ALL_SCOPES, type Identity } from './identity.js';
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
      const granted = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      return {
        subject: payload.sub as string,
        role: payload.role === 'ADMIN' ? 'ADMIN' : 'USER',
        scopes: ALL_SCOPES.filter((scope) => granted.includes(scope)),
        expiresAt: payload.exp as number,
      };
    },
  };
}
