import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJwksIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PUBLIC_URL = 'http://mcp.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;

describe('an external OAuth 2.1 issuer, verified against its JWKS', () => {
  let jwks: JwksIssuer;
  let issuer: string;
  let server: TestServer;

  beforeAll(async () => {
    jwks = await startJwksIssuer();
    issuer = jwks.issuer;
    server = await startTestServer('sqlite', {
      env: { OAUTH_ISSUER: issuer, OAUTH_JWKS_URL: jwks.jwksUrl, PUBLIC_URL, MCP_AUTH: 'required' },
    });
  });
  afterAll(async () => {
    await server.stop();
    await jwks.close();
  });

  /** A token of the issuer's subject agent-7, valid for ten minutes unless `exp` says otherwise. */
  const token = (claims: { scope?: string; aud?: string; exp?: number } = {}) =>
    jwks.sign(
      {
        scope: claims.scope ?? 'movies:read reviews:read',
        ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
      },
      claims.aud ?? AUDIENCE,
    );

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

    const admin = await jwks.sign({ scope: 'watchlist:write', role: 'ADMIN', sub: 'admin' }, AUDIENCE);
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
