/**
 * Issues and verifies this server's HS256 tokens with jose. Verification pins the algorithm, issuer and
 * audience and requires `exp`, because jose alone would accept a token without one.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { ALL_SCOPES, type Identity } from './identity.js';
import type { RoleName } from '../store/tables.js';

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface TokenService {
  issue(subject: string, role: RoleName): Promise<string>;
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

export function createTokenService(settings: TokenSettings): TokenService {
  const key = new TextEncoder().encode(settings.secret);
  return {
    async issue(subject, role) {
      return new SignJWT({ role })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(subject)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt()
        .setExpirationTime(`${settings.ttlSeconds}s`)
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
      const role = payload.role;
      if (role !== 'USER' && role !== 'ADMIN') throw new InvalidTokenError('The token carries no valid role');
      return { subject: payload.sub as string, role, scopes: ALL_SCOPES, expiresAt: payload.exp as number };
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
