import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient, openSession } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { messagesIn } from '../helpers/sse.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

describe('the /mcp transport in session mode', () => {
  let server: TestServer;
  const logs = captureLogs();
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { MCP_MAX_SESSIONS: '50', MCP_SESSION_IDLE_SECONDS: '1' },
      logger: logs.logger,
    });
  });
  afterAll(() => server.stop());

  it('initialize gives an Mcp-Session-Id; a request without it is 400; an unknown one is 404', async () => {
    const sessionId = await openSession(server.url);
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await post(server.url, LIST, { 'mcp-protocol-version': '2025-11-25' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    const unknown = await post(server.url, LIST, {
      'mcp-session-id': 'no-such-session',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(unknown.status).toBe(404);
    await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
  });

  it('DELETE ends a session: it then answers 404', async () => {
    const sessionId = await openSession(server.url);
    const deleted = await fetch(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    const after = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(after.status).toBe(404);
  });

  it('a session is bound to the identity that created it', async () => {
    const owner = (await server.newUser()).token;
    const intruder = (await server.newUser()).token;
    const sessionId = await openSession(server.url, { token: owner });
    const stolen = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      authorization: `Bearer ${intruder}`,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(stolen.status).toBe(404);
    const anonymous = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(anonymous.status).toBe(404);
    const own = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      authorization: `Bearer ${owner}`,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(own.status).toBe(200);
    await fetch(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, authorization: `Bearer ${owner}` },
    });
  });

  it('a session idle for longer than MCP_SESSION_IDLE_SECONDS is closed: it then answers 404', async () => {
    const sessionId = await openSession(server.url);
    // The idle sweep says when it closed this one; a request before that would renew it.
    const closedIdle = () =>
      logs.lines().some((l) => l.msg === 'closing idle MCP session' && l.sessionId === sessionId);
    await expect.poll(closedIdle, { timeout: 10_000 }).toBe(true);
    const evicted = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(evicted.status).toBe(404);
  });

  it('an unknown JSON-RPC method is the protocol error -32601', async () => {
    const sessionId = await openSession(server.url);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const response = await post(
      server.url,
      // Resources are served, but subscribing to them is not offered.
      { jsonrpc: '2.0', id: 9, method: 'resources/subscribe', params: { uri: 'moviedb://schema' } },
      { ...headers, accept: 'application/json, text/event-stream' },
    );
    expect(await response.text()).toMatch(/"error":\{"code":-32601/);
    await fetch(`${server.url}/mcp`, { method: 'DELETE', headers });
  });

  it('other methods are 405 with Allow', async () => {
    const response = await fetch(`${server.url}/mcp`, { method: 'PUT', headers: MCP_HEADERS, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('malformed JSON is -32700 JSON (never HTML); batches are refused; wrong media types are 415 and 406', async () => {
    const malformed = await post(server.url, '{"jsonrpc": "2.0", ');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/application\/json/);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const batch = await post(server.url, [INITIALIZE, LIST]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/batch/i) },
    });
    const text = await post(server.url, JSON.stringify(INITIALIZE), { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const accept = await post(server.url, INITIALIZE, { accept: 'application/json' });
    expect(accept.status).toBe(406);
    const large = await post(server.url, { ...INITIALIZE, padding: 'x'.repeat(200_000) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('an unsupported MCP-Protocol-Version is 400; a client asking an old revision is answered with ours', async () => {
    const sessionId = await openSession(server.url);
    const old = await post(server.url, LIST, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2024-11-05',
    });
    expect(old.status).toBe(400);
    expect(await old.json()).toMatchObject({
      error: { message: expect.stringMatching(/2025-11-25, 2025-06-18, 2025-03-26/) },
    });
    const negotiated = await post(server.url, {
      ...INITIALIZE,
      params: { ...INITIALIZE.params, protocolVersion: '2024-11-05' },
    });
    const body = await negotiated.text();
    expect(body).toContain('"protocolVersion":"2025-11-25"');
  });

  it('a foreign Origin or Host is 403 (DNS-rebinding protection)', async () => {
    const origin = await post(server.url, INITIALIZE, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    // Same origin passes the guard and reaches the session check (400: no session), not 403.
    const sameOrigin = await post(server.url, LIST, { origin: server.url });
    expect(sameOrigin.status).toBe(400);
    const host = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, host: 'evil.example:80' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body)).toMatchObject({ error: { code: -32000 } });
  });

  it('an invalid token is 401 with a WWW-Authenticate challenge naming the resource metadata', async () => {
    const response = await post(server.url, INITIALIZE, { authorization: 'Bearer not.a.token' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  it('serves RFC 9728 protected-resource metadata at both well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const metadata = (await (await fetch(`${server.url}${path}`)).json()) as { scopes_supported: string[] };
      expect(metadata).toMatchObject({ resource: `${server.url}/mcp`, bearer_methods_supported: ['header'] });
      expect(metadata.scopes_supported).toContain('watchlist:write');
    }
  });
});

describe('the /mcp transport with tokens required', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { MCP_AUTH: 'required' } });
  });
  afterAll(() => server.stop());

  it('a missing token is 401 with WWW-Authenticate resource_metadata; a valid one connects', async () => {
    const response = await post(server.url, INITIALIZE);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    const client = await connectClient(server.url, await server.login('user', 'user123'));
    expect((await client.listTools()).tools.length).toBe(9);
    await client.close();
  });
});

describe('the /mcp transport in stateless mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { MCP_MODE: 'stateless' } });
  });
  afterAll(() => server.stop());

  it('serves tool calls without a session, with the caller’s identity, and refuses GET and DELETE with 405', async () => {
    const client = await connectClient(server.url, await server.login('user', 'user123'));
    const result = await callTool(client, 'myWatchlist');
    expect(result.isError).toBe(false);
    expect((result.structuredContent.data as { id: string }[]).map((i) => i.id)).toEqual(['3', '4', '5']);
    await client.close();
    const get = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('a call with a progressToken is answered as an SSE stream: its progress, then the result (v1 SDK client)', async () => {
    const client = await connectClient(server.url, await server.login('user', 'user123'));
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    await client.close();
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ data: { movieId: '1', reviewCount: 8 }, errors: [] });
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'Loading reviews' },
      { progress: 2, total: 3, message: 'Summarising reviews' },
      { progress: 3, total: 3, message: 'Done' },
    ]);
  });

  it('over raw HTTP, progress streams as SSE events before the response; without a progressToken the answer is JSON', async () => {
    const call = (meta?: Record<string, unknown>) =>
      raw(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: {
            name: 'summarizeMovieReviews',
            arguments: { movieId: '2' },
            ...(meta ? { _meta: meta } : {}),
          },
        }),
      });
    const streamed = await call({ progressToken: 'p-1' });
    expect(streamed.status).toBe(200);
    expect(streamed.headers['content-type']).toBe('text/event-stream');
    const messages = messagesIn(streamed.body);
    expect(messages.map((m) => m.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    expect(messages[0]).toMatchObject({ params: { progressToken: 'p-1', progress: 1, total: 3 } });
    expect(messages[3]).toMatchObject({ id: 5, result: { isError: false } });

    const plain = await call();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/json');
    expect(JSON.parse(plain.body)).toMatchObject({ id: 5, result: { isError: false } });
  });
});
