/** A local OAuth issuer for tests: an HTTP server publishing one RS256 key as a JWKS, and a signer. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { startTestServer, type TestDialect, type TestServer } from './server.js';

export interface JwksIssuer {
  /** The issuer URL (`iss`); its JWKS is served at `${issuer}/jwks`. */
  issuer: string;
  jwksUrl: string;
  /** Signs a token for `audience` with the issuer's key; `claims` may override anything. */
  sign(claims: JWTPayload & { sub?: unknown }, audience: string): Promise<string>;
  close(): Promise<void>;
}

export async function startJwksIssuer(): Promise<JwksIssuer> {
  const pair = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    sign: (claims, audience) =>
      new SignJWT({
        iss: issuer,
        aud: audience,
        sub: 'agent-7',
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 600,
        ...claims,
      } as JWTPayload)
        .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
        .sign(pair.privateKey),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ServerTrustingIssuer {
  server: TestServer;
  issuer: JwksIssuer;
  /** Stops the server, then the issuer. */
  stop(): Promise<void>;
}

/** A test server that also trusts a fresh local issuer (OAUTH_ISSUER, OAUTH_JWKS_URL), beside its own tokens. */
export async function startServerTrustingIssuer(
  dialect: TestDialect,
  env: Record<string, string> = {},
): Promise<ServerTrustingIssuer> {
  const issuer = await startJwksIssuer();
  const server = await startTestServer(dialect, {
    env: { OAUTH_ISSUER: issuer.issuer, OAUTH_JWKS_URL: issuer.jwksUrl, ...env },
  });
  return {
    server,
    issuer,
    stop: async () => {
      await server.stop();
      await issuer.close();
    },
  };
}
