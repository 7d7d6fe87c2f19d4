import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PUBLIC_URL = 'http://mcp.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;

describe('an external OAuth 2.1 issuer, verified against its JWKS', () => {
  let jwks: Server;
  let issuer: string;
  let privateKey: CryptoKey;
  let server: TestServer;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    server = await startTestServer('sqlite', {
      env: { OAUTH_ISSUER: issuer, OAUTH_JWKS_URL: `${issuer}/jwks`, PUBLIC_URL, MCP_AUTH: 'required' },
    });
  });
  afterAll(async () => {
    await server.stop();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const token = (claims: { scope?: string; aud?: string; exp?: number } = {}) =>
    new SignJWT({ scope: claims.scope ?? 'movies:read reviews:read' })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .setIssuer(issuer)
      .setSubject('agent-7')
      .setAudience(claims.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(privateKey);

  const initialize = async (bearer: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${bearer}` },
      body: JSON.stringify(INITIALIZE),
    });

  it('accepts its token for the canonical /mcp audience and grants only the token’s scopes', async () => {
    const client = await connectClient(server.url, await token());
    const allowed = await callTool(client, 'recommendMoviesForMood', { mood: 'COMEDY' });
    expect(allowed.isError).toBe(false);
    // A missing scope is the authorization spec's HTTP 403 challenge (the scope matrix covers every tool).
    await expect(callTool(client, 'addToWatchlist', { subject: { movieId: '1' } })).rejects.toThrow(
      /lacks the scope watchlist:write/,
    );
    await client.close();
  });

  it('with the write scope, an external subject gets its own account; an issuer\'s "admin" is not ours', async () => {
    const writer = await connectClient(server.url, await token({ scope: 'watchlist:write watchlist:read' }));
    const added = await callTool(writer, 'addToWatchlist', { subject: { movieId: '5' } });
    expect(added.isError).toBe(false);
    const list = await callTool<{ content: { title: string } }[]>(writer, 'myWatchlist');
    expect(list.structuredContent.data.map((i) => i.content.title)).toEqual(['Forrest Gump']);
    await writer.close();

    const admin = await new SignJWT({ scope: 'watchlist:write', role: 'ADMIN' })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .setIssuer(issuer)
      .setSubject('admin')
      .setAudience(AUDIENCE)
      .setExpirationTime('10m')
      .sign(privateKey);
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: 'mutation { deleteMovie(id: "1") }' }),
    });
    const body = (await response.json()) as { errors: { extensions: { classification: string } }[] };
    expect(body.errors[0]!.extensions.classification).toBe('FORBIDDEN');
    expect(await server.count('movies', 'id = 1')).toBe(1);
    const me = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: '{ me { username role } }' }),
    });
    expect(await me.json()).toEqual({ data: { me: { username: 'oauth:admin', role: 'USER' } } });
  });

  it('refuses a token for another audience, an expired one, and an HS256 token claiming the issuer', async () => {
    expect((await initialize(await token({ aud: 'http://elsewhere.test/mcp' }))).status).toBe(401);
    expect((await initialize(await token({ exp: Math.floor(Date.now() / 1000) - 300 }))).status).toBe(401);
    const confused = await new SignJWT({ scope: 'watchlist:write' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer)
      .setSubject('mallory')
      .setAudience(AUDIENCE)
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('a-shared-secret-anyone-could-guess-000000'));
    const response = await initialize(confused);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('still accepts this server’s own tokens, and advertises the issuer in its resource metadata', async () => {
    expect((await initialize(await server.login('user', 'user123'))).status).toBe(200);
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: AUDIENCE, authorization_servers: [issuer] });
  });
});
