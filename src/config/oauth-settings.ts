import { z } from 'zod';
import { list, section, setting } from './setting.js';

/** JWS algorithms whose verification key is public (RFC 7518, RFC 8037): all an external issuer may use. */
const ASYMMETRIC_JWS_ALGORITHMS = [
  ...['RS', 'PS', 'ES'].flatMap((family) => ['256', '384', '512'].map((bits) => `${family}${bits}`)),
  'EdDSA',
  'Ed25519',
];

export const oauthSettings = section(
  'External OAuth 2.1 issuer (optional; needs PUBLIC_URL)',
  z.object({
    issuer: setting('OAUTH_ISSUER', z.url().optional(), {
      description:
        'An external OAuth 2.1 issuer whose tokens /mcp and /graphql accept too (its `iss`); unset, the built-in authorization server is on.',
      see: 'security.md#authentication-on-mcp',
    }),
    jwksUrl: setting(
      'OAUTH_JWKS_URL',
      z.url().optional(),
      "The issuer's JWKS URL; required with `OAUTH_ISSUER`.",
    ),
    algorithms: setting(
      'OAUTH_ALGORITHMS',
      z
        .string()
        .default('RS256,ES256,PS256,EdDSA')
        .refine(
          (value) =>
            list(value).length > 0 && list(value).every((name) => ASYMMETRIC_JWS_ALGORITHMS.includes(name)),
          { message: 'must list asymmetric JWS algorithms only (RS*, PS*, ES*, EdDSA, Ed25519)' },
        ),
      "Signature algorithms accepted from the issuer, comma-separated. Asymmetric ones only: an HMAC algorithm would make the issuer's published key a signing secret (HS/RS confusion), `none` no check.",
    ).transform(list),
  }),
).transform(({ issuer, jwksUrl, algorithms }) =>
  issuer && jwksUrl ? { issuer, jwksUrl, algorithms } : undefined,
);
