/**
 * MCP revision 2026-07-28 on /mcp beside the 2025 revisions (docs/mcp.md, Protocol revisions): a real v2 client pinned to
 * 2026-07-28 (no handshake, no session) lists and calls the tools, gets progress over SSE, cancels by
 * closing its request; the required headers are checked; a 2025 session is served on the same endpoint
 * at the same time. 2025-era behaviour keeps its own tests, through the v1 client.
 */
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_TTL_MS } from '../../src/mcp/mcp-server.js';
import { startServerTrustingIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { captureLogs } from '../helpers/log-capture.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { connectModernClient, MODERN, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

type ToolResult<T = unknown> = { isError?: boolean; structuredContent: Envelope<T>; resultType?: string };

async function call<T = unknown>(client: ModernClient, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as unknown as ToolResult<T>;
}

const auditLines = (logs: ReturnType<typeof captureLogs>, tool: string) =>
  logs.lines().filter((l) => l.audit === 'tool_call' && l.tool === tool);

describe.each(dialects)('MCP 2026-07-28 on %s', (dialect) => {
  let server: TestServer;
  let anonymous: ModernClient;
  let user: ModernClient;
  let userToken: string;
  const logs = captureLogs();

  beforeAll(async () => {
    server = await startTestServer(dialect, { logger: logs.logger });
    userToken = (await server.newUser()).token;
    anonymous = await connectModernClient(server.url);
    user = await connectModernClient(server.url, { authorization: `Bearer ${userToken}` });
  });
  afterAll(async () => {
    await anonymous.close();
    await user.close();
    await server.stop();
  });

  const post = (request: { headers: Record<string, string>; body: string }) =>
    raw(`${server.url}/mcp`, { method: 'POST', ...request });

  it('the client needs no handshake: server/discover names 2026-07-28, tools, resources, prompts and completions, without logging', async () => {
    expect(anonymous.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    });
    const response = await post(modernRequest(1, 'server/discover'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(response.body)).toMatchObject({
      id: 1,
      result: {
        supportedVersions: [MODERN],
        capabilities: { tools: { listChanged: false } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'moviedb-mcp' } },
        resultType: 'complete',
        ttlMs: LIST_TTL_MS,
      },
    });
  });

  it('tools/list carries a ttlMs, is private to the caller, and lists the nine tools a 2025 session lists', async () => {
    const modern = await user.listTools();
    // The list depends on the caller (MCP_TOOLS_VISIBILITY=caller): no shared cache may serve it to another.
    expect(modern).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: 'private' });
    expect(modern.tools).toHaveLength(9);
    const legacy = await connectClient(server.url, userToken);
    try {
      const { tools } = await legacy.listTools();
      expect(modern.tools).toEqual(tools);
    } finally {
      await legacy.close();
    }
  });

  it('each core tool answers as for a 2025 session: success, NOT_FOUND and an anonymous write all as results with resultType', async () => {
    const mood = await call<{ id: string }[]>(anonymous, 'recommendMoviesForMood', { mood: 'HORROR' });
    expect(mood.isError).toBe(false);
    expect(mood.structuredContent.data.map((m) => m.id)).toEqual([
      '49',
      '52',
      '56',
      '57',
      '55',
      '51',
      '58',
      '54',
      '59',
    ]);
    const movie = await call<{ title: string }>(anonymous, 'getMovie', { id: '1' });
    expect(movie.structuredContent.data.title).toBe('The Shawshank Redemption');
    const missing = await call(anonymous, 'summarizeMovieReviews', { movieId: '999' });
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { data: null, errors: [{ classification: 'NOT_FOUND', retryable: false }] },
    });
    const write = await call(anonymous, 'addToWatchlist', { subject: { movieId: '7' } });
    expect(write.isError).toBe(true);
    expect(write.structuredContent.errors[0]).toMatchObject({ classification: 'UNAUTHORIZED' });

    const raw2026 = await post(modernRequest(9, 'tools/call', { name: 'getMovie', arguments: { id: '2' } }));
    expect(raw2026.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(raw2026.body)).toMatchObject({
      id: 9,
      result: { isError: false, resultType: 'complete' },
    });
  });

  it('the bearer token of each request is the identity: a signed-in write lands in that user’s watch list', async () => {
    const added = await call<{ content: { title: string } }>(user, 'addToWatchlist', {
      subject: { movieId: '7' },
    });
    expect(added.isError).toBe(false);
    expect(added.structuredContent.data.content.title).toBe('Die Hard');
    const again = await call(user, 'addToWatchlist', { subject: { movieId: '7' } });
    expect(again.structuredContent.errors[0]!.message).toMatch(/already in your watch list/);
    const list = await call<{ content: { title: string } }[]>(user, 'myWatchlist');
    expect(list.structuredContent.data.map((item) => item.content.title)).toEqual(['Die Hard']);
    // The same token used by a 2025 session sees the same entry.
    const legacy = await connectClient(server.url, userToken);
    try {
      const seen = await callTool<{ content: { title: string } }[]>(legacy, 'myWatchlist');
      expect(seen.structuredContent.data.map((item) => item.content.title)).toEqual(['Die Hard']);
    } finally {
      await legacy.close();
    }
    expect(auditLines(logs, 'addToWatchlist').at(-1)).toMatchObject({ subject: expect.any(String) });
  });

  it('summarizeMovieReviews with a progressToken answers over SSE with increasing progress; without one, JSON', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = (await user.callTool(
      { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
      { onprogress: (p) => progress.push(p) },
    )) as unknown as ToolResult;
    expect(result.structuredContent).toMatchObject({
      data: { movieId: '1', reviewCount: 8, averageScore: 9.375 },
      errors: [],
    });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.map((p) => p.message)).toEqual(['Loading reviews', 'Summarising reviews', 'Done']);

    const args = { name: 'summarizeMovieReviews', arguments: { movieId: '1' } };
    const streamed = await post(modernRequest(3, 'tools/call', { ...args, _meta: { progressToken: 'p1' } }));
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = streamed.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number });
    expect(events.map((e) => e.method ?? `result ${e.id}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'result 3',
    ]);
    const plain = await post(modernRequest(4, 'tools/call', args));
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
  });

  it('an unknown tool is the JSON-RPC protocol error -32602, not an isError result', async () => {
    await expect(anonymous.callTool({ name: 'dropAllTables', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: dropAllTables'),
    });
  });

  it.each([
    [
      'an Mcp-Method header naming another method',
      { 'mcp-method': 'tools/list' },
      /Mcp-Method header names tools\/list/,
    ],
    [
      'an Mcp-Name header naming another tool',
      { 'mcp-name': 'searchMovies' },
      /Mcp-Name header names "searchMovies"/,
    ],
    ['no Mcp-Method header', { 'mcp-method': '' }, /Mcp-Method header is absent/],
  ])('%s is -32020 and runs nothing', async (_case, headers, message) => {
    const before = auditLines(logs, 'getMovie').length;
    const request = modernRequest(5, 'tools/call', { name: 'getMovie', arguments: { id: '1' } }, headers);
    if ((headers as Record<string, string>)['mcp-method'] === '') delete request.headers['mcp-method'];
    const response = await post(request);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { code: -32020, message: expect.stringMatching(message) },
    });
    expect(auditLines(logs, 'getMovie').length).toBe(before);
  });

  it('an initialize sent with the 2026-07-28 version header is -32020; methods 2026-07-28 removed are -32601 (404)', async () => {
    const handshake = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': MODERN },
      body: JSON.stringify(INITIALIZE),
    });
    expect(JSON.parse(handshake.body)).toMatchObject({ error: { code: -32020 } });
    for (const method of ['initialize', 'ping', 'logging/setLevel']) {
      const removed = await post(modernRequest(10, method));
      expect(removed.status).toBe(404);
      expect(JSON.parse(removed.body)).toMatchObject({ id: 10, error: { code: -32601 } });
    }
  });

  it('a revision we do not speak: a 2026-style request gets UnsupportedProtocolVersionError naming 2026-07-28; any other, our 400 naming all', async () => {
    const envelope = { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } };
    const modern = await post(
      modernRequest(6, 'server/discover', envelope, { 'mcp-protocol-version': 'v999.0.0' }),
    );
    expect(modern.status).toBe(400);
    expect(JSON.parse(modern.body)).toMatchObject({
      id: 6,
      error: { data: { supported: [MODERN], requested: 'v999.0.0' } },
    });
    const legacy = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2099-01-01' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(legacy.status).toBe(400);
    expect(legacy.body).toMatch(/supported: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26/);
  });

  it('serves a 2025 session and a 2026 client at once, interleaved, each in its own revision', async () => {
    const legacy: LegacyClient = await connectClient(server.url, userToken);
    try {
      const ids = ['1', '2', '3', '4', '5', '6'];
      const answers = await Promise.all(
        ids.map((id, i) =>
          i % 2 === 0
            ? callTool<{ id: string }>(legacy, 'getMovie', { id }).then((r) => [
                '2025',
                r.structuredContent.data.id,
              ])
            : call<{ id: string }>(user, 'getMovie', { id }).then((r) => [
                '2026',
                r.structuredContent.data.id,
              ]),
        ),
      );
      expect(answers).toEqual(ids.map((id, i) => [i % 2 === 0 ? '2025' : '2026', id]));
      expect(legacy.getServerVersion()?.name).toBe('moviedb-mcp');
      // The 2025 session goes on after the 2026 calls; the 2026 answers carried no session.
      expect((await callTool(legacy, 'getMovie', { id: '9' })).isError).toBe(false);
      const modern = await post(modernRequest(7, 'tools/list'));
      expect(modern.headers['mcp-session-id']).toBeUndefined();
    } finally {
      await legacy.close();
    }
  });

  it('the v2 client without a pin still negotiates 2025-11-25 and gets a session', async () => {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'default-v2', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(transport.protocolVersion).toBe('2025-11-25');
      const result = (await client.callTool({
        name: 'getMovie',
        arguments: { id: '1' },
      })) as unknown as ToolResult;
      expect(result.isError).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe.each(dialects)('MCP 2026-07-28 rate limits on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: {
        RATE_LIMITS: 'on',
        RATE_LIMIT_ANON_OPERATIONS: '2',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'loopback',
      },
    });
  });
  afterAll(() => server.stop());

  it('anonymous 2026 calls are counted per client address, on the same quota as a 2025 session from it', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const modern = await connectModernClient(server.url, from('203.0.113.5'));
    const legacy = new LegacyClient({ name: 'rate-limit-2025', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: from('203.0.113.5') } }),
    );
    const elsewhere = await connectModernClient(server.url, from('203.0.113.6'));
    try {
      expect((await call(modern, 'getMovie', { id: '1' })).isError).toBe(false);
      expect((await callTool(legacy, 'getMovie', { id: '1' })).isError).toBe(false);
      const refused = await call(modern, 'getMovie', { id: '1' });
      expect(refused.structuredContent.errors[0]).toMatchObject({
        classification: 'RATE_LIMITED',
        retryable: true,
      });
      expect((await call(elsewhere, 'getMovie', { id: '1' })).isError).toBe(false);
    } finally {
      await Promise.all([modern.close(), legacy.close(), elsewhere.close()]);
    }
  });
});

describe.each(dialects)(
  'MCP 2026-07-28 beside stateless 2025 calls (MCP_MODE=stateless) on %s',
  (dialect) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { MCP_MODE: 'stateless' } });
    });
    afterAll(() => server.stop());

    it('a pinned client lists and calls tools; a 2025 client is served statelessly on the same endpoint', async () => {
      const modern = await connectModernClient(server.url);
      const legacy = await connectClient(server.url);
      try {
        expect((await modern.listTools()).ttlMs).toBe(LIST_TTL_MS);
        const movie = await call<{ title: string }>(modern, 'getMovie', { id: '1' });
        expect(movie.structuredContent.data.title).toBe('The Shawshank Redemption');
        expect((await callTool(legacy, 'getMovie', { id: '1' })).isError).toBe(false);
      } finally {
        await Promise.all([modern.close(), legacy.close()]);
      }
    });
  },
);

describe.each(dialects)('MCP 2026-07-28 scope challenge with an external issuer on %s', (dialect) => {
  const PUBLIC_URL = 'http://mcp.test';
  let issuer: JwksIssuer;
  let server: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, issuer, stop } = await startServerTrustingIssuer(dialect, { PUBLIC_URL }));
  });
  afterAll(() => stop());

  it('a token without the tool’s scope is HTTP 403 insufficient_scope, as for a 2025 session', async () => {
    const token = await issuer.sign(
      { sub: `agent-2026-${dialect}`, scope: 'movies:read' },
      `${PUBLIC_URL}/mcp`,
    );
    const args = { input: { subject: { movieId: '4' }, score: 7 } };
    const denied = await raw(`${server.url}/mcp`, {
      method: 'POST',
      ...modernRequest(
        8,
        'tools/call',
        { name: 'createReview', arguments: args },
        {
          authorization: `Bearer ${token}`,
        },
      ),
    });
    expect(denied.status).toBe(403);
    expect(denied.headers['www-authenticate']).toMatch(
      /^Bearer error="insufficient_scope", scope="movies:read reviews:write", /,
    );
    expect(JSON.parse(denied.body)).toMatchObject({
      id: 8,
      error: { data: { requiredScopes: ['reviews:write'] } },
    });
    const client = await connectModernClient(server.url, { authorization: `Bearer ${token}` });
    try {
      expect((await call(client, 'getMovie', { id: '1' })).isError).toBe(false);
    } finally {
      await client.close();
    }
  });
});
