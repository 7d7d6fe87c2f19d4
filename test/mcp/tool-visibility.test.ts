/**
 * Tools per caller (docs/mcp.md, Tools per caller): tools/list shows each caller the tools it can call, by the same
 * role and scope rules the executor enforces, through real clients of both eras; a tool hidden from a
 * caller answers a call exactly as it does when listed (MCP_TOOLS_VISIBILITY=all), never "unknown
 * tool"; a per-caller list is never cacheable across callers.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/identity.js';
import { startJwksIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { connectModernClient, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PUBLIC_URL = 'http://mcp.test';
const AUDIENCE = `${PUBLIC_URL}/mcp`;
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;
const PROJECT_OPERATIONS = new URL('../../operations', import.meta.url).pathname;

/**
 * A catalogue of the project's own getMovie (public) and myWatchlist (signed in) beside an
 * administrators' tool (test/fixtures/operations-roles), in a scratch folder.
 */
function rolesCatalogue(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'moviedb-roles-'));
  cpSync(fixture('operations-roles'), dir, { recursive: true });
  for (const file of ['GetMovie.graphql', 'MyWatchlist.graphql'])
    cpSync(path.join(PROJECT_OPERATIONS, file), path.join(dir, file));
  return dir;
}

const PUBLIC_TOOLS = ['getMovie', 'recommendMoviesForMood', 'searchMovies', 'summarizeMovieReviews'];
const ALL_TOOLS = [
  ...PUBLIC_TOOLS,
  'addToWatchlist',
  'createReview',
  'myWatchlist',
  'removeFromWatchlist',
  'setWatchStatus',
].sort();

/** The tool names a caller with these headers sees, as a 2025 session and as a 2026-07-28 client. */
async function listedNames(url: string, token?: string): Promise<{ legacy: string[]; modern: string[] }> {
  const legacy = await connectClient(url, token);
  const modern = await connectModernClient(url, token ? { authorization: `Bearer ${token}` } : {});
  try {
    const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();
    return {
      legacy: names((await legacy.listTools()).tools),
      modern: names((await modern.listTools()).tools),
    };
  } finally {
    await Promise.all([legacy.close(), modern.close()]);
  }
}

/** A tools/call answer as a comparable value: the HTTP status, the challenge header and the body. */
async function rawCall(url: string, token: string | undefined, name: string, args: Record<string, unknown>) {
  const request = modernRequest(7, 'tools/call', { name, arguments: args });
  const response = await raw(`${url}/mcp`, {
    method: 'POST',
    headers: { ...request.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: request.body,
  });
  const body = JSON.parse(response.body) as { result?: { _meta?: unknown } };
  // The server identity stamped on every 2026 result is the same on both servers; keep the rest.
  delete body.result?._meta;
  return { status: response.status, challenge: response.headers['www-authenticate'], body };
}

describe('tools/list per caller, with the project catalogue', () => {
  let issuer: JwksIssuer;
  let byCaller: TestServer;
  let showAll: TestServer;
  let subjects = 0;
  const env = () => ({ OAUTH_ISSUER: issuer.issuer, OAUTH_JWKS_URL: issuer.jwksUrl, PUBLIC_URL });
  /** A token of a fresh external subject holding exactly these scopes. */
  const tokenWith = (scopes: readonly string[]) =>
    issuer.sign({ sub: `visibility-${++subjects}`, scope: scopes.join(' ') }, AUDIENCE);

  beforeAll(async () => {
    issuer = await startJwksIssuer();
    byCaller = await startTestServer('sqlite', { env: env() });
    showAll = await startTestServer('sqlite', { env: { ...env(), MCP_TOOLS_VISIBILITY: 'all' } });
  });
  afterAll(async () => {
    await Promise.all([byCaller.stop(), showAll.stop()]);
    await issuer.close();
  });

  it('an anonymous caller sees the public tools only, in both eras', async () => {
    expect(await listedNames(byCaller.url)).toEqual({ legacy: PUBLIC_TOOLS, modern: PUBLIC_TOOLS });
  });

  it('a signed-in user and an administrator (whose tokens carry every scope) see every tool', async () => {
    for (const [name, password] of [
      ['user', 'user123'],
      ['admin', 'admin123'],
    ] as const) {
      const token = await byCaller.login(name, password);
      expect(await listedNames(byCaller.url, token)).toEqual({ legacy: ALL_TOOLS, modern: ALL_TOOLS });
    }
  });

  it('a token with limited scopes sees the tools those scopes (and sign-in) allow', async () => {
    const readOnly = await listedNames(byCaller.url, await tokenWith(['movies:read']));
    expect(readOnly.legacy).toEqual(['getMovie', 'recommendMoviesForMood', 'searchMovies']);
    expect(readOnly.modern).toEqual(readOnly.legacy);
    const watchlist = await listedNames(
      byCaller.url,
      await tokenWith(['movies:read', 'watchlist:read', 'watchlist:write']),
    );
    expect(watchlist.legacy).toEqual([
      'addToWatchlist',
      'getMovie',
      'myWatchlist',
      'recommendMoviesForMood',
      'removeFromWatchlist',
      'searchMovies',
      'setWatchStatus',
    ]);
    expect(watchlist.modern).toEqual(watchlist.legacy);
    expect((await listedNames(byCaller.url, await tokenWith(ALL_SCOPES))).legacy).toEqual(ALL_TOOLS);
  });

  it('MCP_TOOLS_VISIBILITY=all shows everyone every tool', async () => {
    expect(await listedNames(showAll.url)).toEqual({ legacy: ALL_TOOLS, modern: ALL_TOOLS });
    expect((await listedNames(showAll.url, await tokenWith(['movies:read']))).modern).toEqual(ALL_TOOLS);
  });

  it('a per-caller 2026 list is cacheScope private; a list for all is public', async () => {
    const clients: ModernClient[] = [
      await connectModernClient(byCaller.url),
      await connectModernClient(showAll.url),
    ];
    try {
      expect(await clients[0]!.listTools()).toMatchObject({ cacheScope: 'private' });
      expect(await clients[1]!.listTools()).toMatchObject({ cacheScope: 'public' });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('a hidden tool called with a token that lacks its scope is the same 403 insufficient_scope as a listed one', async () => {
    const token = await tokenWith(['movies:read']);
    const args = { input: { subject: { movieId: '4' }, score: 7 } };
    const hidden = await rawCall(byCaller.url, token, 'createReview', args);
    expect(hidden.status).toBe(403);
    expect(hidden.challenge).toMatch(/^Bearer error="insufficient_scope", scope="movies:read reviews:write"/);
    expect(hidden).toEqual(await rawCall(showAll.url, token, 'createReview', args));
  });

  it('a hidden write tool called anonymously is the same UNAUTHORIZED tool error as a listed one, never "unknown tool"', async () => {
    const clients: Client[] = [await connectClient(byCaller.url), await connectClient(showAll.url)];
    try {
      const [hidden, listed] = await Promise.all(
        clients.map((client) => callTool(client, 'addToWatchlist', { subject: { movieId: '3' } })),
      );
      expect(hidden!.structuredContent.errors[0]).toMatchObject({
        classification: 'UNAUTHORIZED',
        message: 'Sign in to use addToWatchlist',
      });
      expect(hidden).toEqual(listed);
      // A raw 2026 call answers the same too: a tool result, not the -32602 of an unknown tool.
      const rawHidden = await rawCall(byCaller.url, undefined, 'myWatchlist', {});
      expect(rawHidden).toEqual(await rawCall(showAll.url, undefined, 'myWatchlist', {}));
      expect(rawHidden.body).toMatchObject({ result: { isError: true } });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

describe('tools/list per caller, with a tool for administrators', () => {
  let byCaller: TestServer;
  let showAll: TestServer;
  const operationsDir = rolesCatalogue();
  beforeAll(async () => {
    const env = { OPERATIONS_DIR: operationsDir };
    byCaller = await startTestServer('sqlite', { env });
    showAll = await startTestServer('sqlite', { env: { ...env, MCP_TOOLS_VISIBILITY: 'all' } });
  });
  afterAll(async () => {
    await Promise.all([byCaller.stop(), showAll.stop()]);
    rmSync(operationsDir, { recursive: true, force: true });
  });

  it('anonymous callers see the public tool, users also theirs, administrators every tool', async () => {
    expect((await listedNames(byCaller.url)).modern).toEqual(['getMovie']);
    const user = await byCaller.login('user', 'user123');
    expect(await listedNames(byCaller.url, user)).toEqual({
      legacy: ['getMovie', 'myWatchlist'],
      modern: ['getMovie', 'myWatchlist'],
    });
    const admin = await byCaller.login('admin', 'admin123');
    const everything = ['deleteMovie', 'getMovie', 'myWatchlist'];
    expect(await listedNames(byCaller.url, admin)).toEqual({ legacy: everything, modern: everything });
  });

  it('a user calling the hidden admin tool gets the FORBIDDEN a listed one gives, and nothing is deleted', async () => {
    const answers = await Promise.all(
      [byCaller, showAll].map(async (server) => {
        const client = await connectClient(server.url, await server.login('user', 'user123'));
        try {
          return await callTool(client, 'deleteMovie', { id: '1' });
        } finally {
          await client.close();
        }
      }),
    );
    expect(answers[0]!.structuredContent.errors[0]).toMatchObject({
      classification: 'FORBIDDEN',
      message: 'deleteMovie needs the ADMIN role',
      extensions: { requiredRole: 'ADMIN' },
    });
    expect(answers[0]).toEqual(answers[1]);
    expect(await byCaller.count('movies', 'id = 1')).toBe(1);
  });
});
