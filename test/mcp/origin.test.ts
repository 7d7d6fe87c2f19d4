/**
 * DNS-rebinding protection (docs/security.md, Transport guards): the Host must be one we are reached by, and a browser
 * Origin must be the configured public origin or an allowed one (loopback pages may call a loopback
 * server). The request's own Host never vouches for its Origin: a rebinding page controls both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the Origin and Host checks on /mcp', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: {
        PUBLIC_URL: 'https://movies.example.com',
        MCP_ALLOWED_HOSTS: 'movies.example.com,127.0.0.1',
        MCP_ALLOWED_ORIGINS: 'https://app.example.org',
      },
    });
  });
  afterAll(() => server.stop());

  const initialize = (headers: Record<string, string>) =>
    raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...headers },
      body: JSON.stringify(INITIALIZE),
    });

  it('an Origin equal to the request’s own Host is refused unless it is the public origin', async () => {
    // Same host as the Host header, but not the configured origin (http, not https): the old rule let it in.
    const spoofed = await initialize({ host: 'movies.example.com', origin: 'http://movies.example.com' });
    expect(spoofed.status).toBe(403);
    expect(JSON.parse(spoofed.body)).toMatchObject({
      error: { code: -32000, message: 'Forbidden: Origin http://movies.example.com is not allowed' },
    });
    const withPort = await initialize({
      host: 'movies.example.com:8443',
      origin: 'https://movies.example.com:8443',
    });
    expect(withPort.status).toBe(403);
  });

  it('the public origin, an allowed origin, and a request without Origin pass', async () => {
    const cases: Record<string, string>[] = [
      { host: 'movies.example.com', origin: 'https://movies.example.com' },
      { host: 'movies.example.com', origin: 'https://app.example.org' },
      { host: 'movies.example.com' },
    ];
    for (const headers of cases) {
      expect((await initialize(headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('a Host that is not allowed is refused whatever the Origin', async () => {
    const rebinding = await initialize({ host: 'evil.example', origin: 'http://evil.example' });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body)).toMatchObject({
      error: { message: 'Forbidden: Host evil.example is not allowed' },
    });
    const publicOriginWrongHost = await initialize({
      host: 'evil.example',
      origin: 'https://movies.example.com',
    });
    expect(publicOriginWrongHost.status).toBe(403);
  });

  it('a loopback page may call the loopback-bound server; a foreign page may not', async () => {
    const port = new URL(server.url).port;
    expect((await initialize({ host: `127.0.0.1:${port}`, origin: 'http://localhost:5173' })).status).toBe(
      200,
    );
    expect((await initialize({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' })).status).toBe(
      403,
    );
  });
});
