import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/identity.js';
import { startServerTrustingIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient } from '../helpers/mcp.js';
import { dialects, type TestServer } from '../helpers/server.js';

const PUBLIC_URL = 'http://mcp.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const METADATA = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;

/**
 * The oracle: each curated tool, arguments that reach its resolver, the scope its token needs (docs/contract.md,
 * Identity) and whether it needs sign-in. Written by hand, so a schema change that moves a scope fails here.
 */
const MATRIX: { tool: string; file: string; args: Record<string, unknown>; scope: string; write: boolean }[] =
  [
    {
      tool: 'recommendMoviesForMood',
      file: 'RecommendMoviesForMood',
      args: { mood: 'COMEDY' },
      scope: 'movies:read',
      write: false,
    },
    {
      tool: 'summarizeMovieReviews',
      file: 'SummarizeMovieReviews',
      args: { movieId: '1' },
      scope: 'reviews:read',
      write: false,
    },
    {
      tool: 'searchMovies',
      file: 'SearchMovies',
      args: { filter: { titleContains: 'the' } },
      scope: 'movies:read',
      write: false,
    },
    { tool: 'getMovie', file: 'GetMovie', args: { id: '1' }, scope: 'movies:read', write: false },
    { tool: 'myWatchlist', file: 'MyWatchlist', args: {}, scope: 'watchlist:read', write: true },
    {
      tool: 'addToWatchlist',
      file: 'AddToWatchlist',
      args: { subject: { movieId: '3' } },
      scope: 'watchlist:write',
      write: true,
    },
    {
      tool: 'setWatchStatus',
      file: 'SetWatchStatus',
      args: { itemId: '999999', status: 'WATCHED' },
      scope: 'watchlist:write',
      write: true,
    },
    {
      tool: 'removeFromWatchlist',
      file: 'RemoveFromWatchlist',
      args: { itemId: '999999' },
      scope: 'watchlist:write',
      write: true,
    },
    {
      tool: 'createReview',
      file: 'CreateReview',
      args: { input: { subject: { movieId: '4' }, score: 7 } },
      scope: 'reviews:write',
      write: true,
    },
  ];

const documentOf = (file: string) =>
  readFileSync(new URL(`../../operations/${file}.graphql`, import.meta.url), 'utf8');

describe.each(dialects)('the scope matrix on /graphql and /mcp with an external issuer, on %s', (dialect) => {
  let issuer: JwksIssuer;
  let server: TestServer;
  let subjects = 0;

  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, issuer, stop } = await startServerTrustingIssuer(dialect, { PUBLIC_URL }));
  });
  afterAll(() => stop());

  /** A token of a fresh external subject holding exactly these scopes. */
  const tokenWith = (scopes: readonly string[]) =>
    issuer.sign({ sub: `agent-${dialect}-${++subjects}`, scope: scopes.join(' ') }, AUDIENCE);

  const postGraphql = (file: string, variables: Record<string, unknown>, token?: string) =>
    server.graphql(documentOf(file), variables, token);

  /** A raw tools/call in a fresh session, so the HTTP status and headers can be read. */
  const rawToolCall = async (token: string, name: string, args: Record<string, unknown>) => {
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${token}` };
    const init = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(INITIALIZE),
    });
    expect(init.status).toBe(200);
    const sessionHeaders = {
      ...headers,
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    await init.text();
    await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    return fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: sessionHeaders,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
  };

  describe.each(MATRIX)('$tool needs $scope', ({ tool, file, args, scope }) => {
    const allBut = ALL_SCOPES.filter((s) => s !== scope);

    it('on /graphql, a token without the scope is FORBIDDEN naming it; with only that scope it runs', async () => {
      const denied = await postGraphql(file, args, await tokenWith(allBut));
      const error = denied.body.errors?.[0];
      expect(error?.extensions).toMatchObject({ classification: 'FORBIDDEN', requiredScopes: [scope] });
      expect(error?.message).toContain(scope);

      const allowed = await postGraphql(file, args, await tokenWith([scope]));
      const classifications = (allowed.body.errors ?? []).map((e) => e.extensions?.classification);
      expect(classifications).not.toContain('FORBIDDEN');
      expect(classifications).not.toContain('UNAUTHORIZED');
    });

    it('on /mcp, a token without the scope is HTTP 403 with the insufficient_scope challenge; with it the tool runs', async () => {
      const denied = await rawToolCall(await tokenWith(allBut), tool, args);
      expect(denied.status).toBe(403);
      const challenge = denied.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer error="insufficient_scope", /);
      // What the token had plus what the tool needs, so stepping up loses nothing.
      expect(challenge).toContain(`scope="${ALL_SCOPES.join(' ')}"`);
      expect(challenge).toContain(`resource_metadata="${METADATA}"`);
      expect(await denied.json()).toMatchObject({
        id: 7,
        error: { message: expect.stringContaining(scope), data: { requiredScopes: [scope] } },
      });

      const client = await connectClient(server.url, await tokenWith([scope]));
      try {
        const result = await callTool(client, tool, args);
        const classifications = result.structuredContent.errors.map((e) => e.classification);
        expect(classifications).not.toContain('FORBIDDEN');
        expect(classifications).not.toContain('UNAUTHORIZED');
      } finally {
        await client.close();
      }
    });
  });

  it('the challenge names only what the token had plus what the tool needs', async () => {
    const response = await rawToolCall(await tokenWith(['movies:read']), 'createReview', MATRIX[8]!.args);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="movies:read reviews:write"');
  });

  it('a scope guards nested fields too: reviews through movie need reviews:read on /graphql', async () => {
    const query = '{ movie(id: "1") { title reviews { score } } }';
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await tokenWith(['movies:read'])}`,
      },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as {
      data: { movie: { title: string } | null };
      errors: { path: string[]; extensions: { requiredScopes: string[] } }[];
    };
    expect(body.errors[0]).toMatchObject({
      path: ['movie', 'reviews'],
      extensions: { requiredScopes: ['reviews:read'] },
    });
  });

  it('anonymous callers need no scope for public reads, and get UNAUTHORIZED on every tool that needs sign-in', async () => {
    const client = await connectClient(server.url);
    try {
      for (const { tool, file, args, write } of MATRIX) {
        const result = await callTool(client, tool, args);
        const graphql = await postGraphql(file, args);
        if (write) {
          expect(result.structuredContent.errors[0]).toMatchObject({ classification: 'UNAUTHORIZED' });
          expect(result.structuredContent.errors[0]!.message).toMatch(/^Sign in to use /);
          expect(graphql.body.errors?.[0]?.extensions?.classification).toBe('UNAUTHORIZED');
        } else {
          expect(result.structuredContent.errors).toEqual([]);
          expect(graphql.body.errors).toBeUndefined();
        }
      }
    } finally {
      await client.close();
    }
  });

  it('an external token is never an administrator: a catalogue write is FORBIDDEN naming the role', async () => {
    const token = await issuer.sign({ sub: 'admin', role: 'ADMIN', scope: ALL_SCOPES.join(' ') }, AUDIENCE);
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'mutation { deleteMovie(id: "1") }' }),
    });
    const body = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ classification: 'FORBIDDEN', requiredRole: 'ADMIN' });
    expect(await server.count('movies', 'id = 1')).toBe(1);
  });
});

describe('the insufficient_scope challenge in stateless mode', () => {
  let issuer: JwksIssuer;
  let server: TestServer;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, issuer, stop } = await startServerTrustingIssuer('sqlite', {
      PUBLIC_URL,
      MCP_MODE: 'stateless',
    }));
  });
  afterAll(() => stop());

  it('a tools/call without the scope is a 403 with the challenge; with it the call runs', async () => {
    const call = async (scope: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          'mcp-protocol-version': '2025-11-25',
          authorization: `Bearer ${await issuer.sign({ scope }, AUDIENCE)}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'myWatchlist', arguments: {} },
        }),
      });
    const denied = await call('movies:read');
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="movies:read watchlist:read", resource_metadata="${METADATA}", ` +
        'error_description="This token lacks the scope watchlist:read needed by myWatchlist"',
    );
    const allowed = await call('watchlist:read');
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ id: 3, result: { isError: false } });
  });
});
