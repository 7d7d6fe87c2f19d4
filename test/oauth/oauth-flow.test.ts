/**
 * The built-in authorization server through the front door: the v1 SDK client's OAuth flow against a
 * server with MCP_AUTH=required and no external issuer (discovery, dynamic registration, the sign-in and
 * consent pages, the loopback redirect, the code exchange), ending in a connected MCP client that lists
 * tools and writes as the user who signed in; then refresh rotation and revocation.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJwksIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { callTool } from '../helpers/mcp.js';
import { PagesOAuthProvider, startLoopbackCallback } from '../helpers/oauth-browser.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(dialects)('built-in authorization server (%s)', (dialect) => {
  let server: TestServer;
  let callback: Awaited<ReturnType<typeof startLoopbackCallback>>;
  beforeAll(async () => {
    server = await startTestServer(dialect, { env: { MCP_AUTH: 'required' } });
    callback = await startLoopbackCallback();
  });
  afterAll(async () => {
    await callback.close();
    await server.stop();
  });

  it('protected-resource metadata names this server, whose RFC 8414 metadata offers S256 only', async () => {
    const resource = (await (
      await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as {
      authorization_servers: string[];
    };
    expect(resource.authorization_servers).toEqual([server.url]);
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/authorize`,
      token_endpoint: `${server.url}/token`,
      registration_endpoint: `${server.url}/register`,
      revocation_endpoint: `${server.url}/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('the SDK client signs in through the pages and then lists tools and writes as that user', async () => {
    const user = await server.newUser();
    const provider = new PagesOAuthProvider(callback.url, { username: user.username, password: 'secret123' });
    const mcpUrl = new URL(`${server.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const redirect = callback.received.at(-1);
    expect(redirect?.get('code')).toBeTruthy();
    await first.finishAuth(redirect!.get('code')!);

    const tokens = provider.tokens()!;
    const claims = decodeJwt(tokens.access_token);
    expect(claims.aud).toContain(`${server.url}/mcp`);
    expect(claims.scope).toBe(
      'movies:read reviews:read reviews:write watchlist:read watchlist:write graphql:execute',
    );
    expect(tokens.refresh_token).toBeTruthy();

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('addToWatchlist');
    const added = await callTool<{ id: string }>(client, 'addToWatchlist', {
      subject: { movieId: '1' },
    });
    expect(added.isError, JSON.stringify(added)).toBeFalsy();
    const mine = await server.graphql<{ watchlist: { id: string }[] }>(
      '{ watchlist { id } }',
      {},
      user.token,
    );
    expect(mine.body.data?.watchlist.map((item) => item.id)).toEqual([added.structuredContent.data.id]);
    await client.close();
  });

  it('a consent for fewer scopes gives a token that can read but not write', async () => {
    const user = await server.newUser();
    const provider = new PagesOAuthProvider(
      callback.url,
      { username: user.username, password: 'secret123' },
      'movies:read watchlist:read',
    );
    const mcpUrl = new URL(`${server.url}/mcp`);
    // The SDK asks for every scope the metadata lists; a client may ask for fewer.
    expect(await auth(provider, { serverUrl: mcpUrl, scope: 'movies:read watchlist:read' })).toBe('REDIRECT');
    const code = callback.received.at(-1)!.get('code')!;
    expect(await auth(provider, { serverUrl: mcpUrl, authorizationCode: code })).toBe('AUTHORIZED');
    expect(decodeJwt(provider.tokens()!.access_token).scope).toBe('movies:read watchlist:read');
    const written = await server.graphql(
      'mutation { addToWatchlist(subject: {movieId: "2"}) { id } }',
      {},
      provider.tokens()!.access_token,
    );
    expect(
      written.body.errors?.[0]?.extensions?.classification ?? written.body.errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');
  });
});

describe('with an external issuer configured', () => {
  let jwks: JwksIssuer;
  let server: TestServer;
  beforeAll(async () => {
    jwks = await startJwksIssuer();
    server = await startTestServer('sqlite', {
      env: {
        OAUTH_ISSUER: jwks.issuer,
        OAUTH_JWKS_URL: jwks.jwksUrl,
        PUBLIC_URL: 'http://mcp.test',
        MCP_AUTH: 'required',
      },
    });
  });
  afterAll(async () => {
    await server.stop();
    await jwks.close();
  });

  it('the metadata names that issuer and the built-in endpoints are not served', async () => {
    const resource = (await (
      await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`, { headers: { host: 'mcp.test' } })
    ).json()) as { authorization_servers: string[] };
    expect(resource.authorization_servers).toEqual([jwks.issuer]);
    for (const path of ['/.well-known/oauth-authorization-server', '/authorize', '/register', '/token']) {
      const response = await fetch(`${server.url}${path}`, {
        method: path.startsWith('/register') || path === '/token' ? 'POST' : 'GET',
      });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });
});
