/**
 * DNS rebinding against /graphql: a page on another site whose name is rebound to a loopback-bound server
 * sends its own name as Host. /mcp refused it; /graphql answered, so the page could sign in as a seed
 * account (whose password the README's quick start prints) and act. The same Host rule now holds on both endpoints and
 * on the OAuth metadata (which named the resource after the Host it was asked with); health probes stay
 * open to load balancers that address the server by IP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const LOGIN_ADMIN = JSON.stringify({
  query: 'mutation { login(input: {username: "admin", password: "admin123"}) { token } }',
});

describe.each(dialects)('the Host rule on every endpoint (%s)', (dialect) => {
  let server: TestServer;
  let port: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    port = new URL(server.url).port;
  });
  afterAll(() => server.stop());

  const graphqlPost = (host: string) =>
    raw(`${server.url}/graphql`, {
      method: 'POST',
      headers: { host, 'content-type': 'application/json', origin: `http://${host}` },
      body: LOGIN_ADMIN,
    });

  it('a rebinding page cannot sign in through /graphql, nor read it over GET or open GraphiQL', async () => {
    const rebinding = await graphqlPost(`evil.example:${port}`);
    expect(rebinding.status).toBe(403);
    expect(rebinding.body).not.toContain('token');
    expect(JSON.parse(rebinding.body)).toEqual({
      errors: [
        {
          message: `Forbidden: Host evil.example:${port} is not allowed`,
          extensions: { classification: 'FORBIDDEN' },
        },
      ],
    });
    const get = await raw(`${server.url}/graphql?query=%7B__typename%7D`, {
      headers: { host: 'evil.example', accept: 'application/json' },
    });
    expect(get.status).toBe(403);
    const graphiql = await raw(`${server.url}/graphql`, {
      headers: { host: 'evil.example', accept: 'text/html' },
    });
    expect(graphiql.status).toBe(403);
    expect(graphiql.headers['content-type']).toMatch(/application\/json/);
  });

  it('/mcp refuses the same Host, so the two endpoints agree', async () => {
    const response = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: `evil.example:${port}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(response.status).toBe(403);
  });

  it('the protected-resource metadata never names a foreign Host as the resource', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const foreign = await raw(`${server.url}${path}`, { headers: { host: 'evil.example' } });
      expect(foreign.status, path).toBe(403);
      expect(foreign.body).not.toContain('evil.example/mcp');
      const ours = await raw(`${server.url}${path}`, { headers: { host: `localhost:${port}` } });
      expect(ours.status, path).toBe(200);
      expect(JSON.parse(ours.body).resource).toBe(`http://localhost:${port}/mcp`);
    }
  });

  it('loopback names reach /graphql; probes answer whatever the Host', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const response = await graphqlPost(host);
      expect(response.status, host).toBe(200);
      expect(JSON.parse(response.body).data.login.token).toMatch(/^ey/);
    }
    for (const path of ['/healthz', '/readyz']) {
      const probe = await raw(`${server.url}${path}`, { headers: { host: '10.1.2.3:8080' } });
      expect(probe.status, path).toBe(200);
    }
  });
});
