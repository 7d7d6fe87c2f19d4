/**
 * Resources, prompts and completions (docs/mcp.md, Resources and prompts) through real clients of both revisions: the v1
 * SDK client (2025-11-25, a session) and the v2 client pinned to 2026-07-28. What is listed and what a
 * read answers depend on who asks, with the same rules as the tools.
 */
import { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, MCP_HEADERS } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** The surface both clients share (their own types differ only in generics). */
interface AnyClient {
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<{ uriTemplate: string; name: string }> }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string }> }>;
  listPrompts(): Promise<{
    prompts: Array<{ name: string; arguments?: Array<{ name: string; required?: boolean }> }>;
  }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{
    messages: Array<{ role: string; content: { type: string; text?: string } }>;
  }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  close(): Promise<void>;
}

/** tools/list as both clients answer it, as far as these tests read it. */
interface ToolLister {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: unknown }> }>;
}

/** A JSON-RPC error as each client throws it. */
async function errorOf(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    // The v1 client prefixes the server's message with the code.
    return { code, message: message.replace(/^MCP error -?\d+: /, ''), data };
  }
  throw new Error('expected a JSON-RPC error');
}

const revisions = [
  {
    name: '2025-11-25',
    connect: connectClient as (url: string, token?: string) => Promise<LegacyClient>,
    notFound: -32002,
  },
  {
    name: '2026-07-28',
    connect: (url: string, token?: string) =>
      connectModernClient(url, token ? { authorization: `Bearer ${token}` } : {}) as Promise<ModernClient>,
    notFound: -32602,
  },
];

describe.each(dialects)('resources and prompts on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = (await server.newUser()).token;
  });
  afterAll(() => server.stop());

  describe.each(revisions)('over $name', ({ connect, notFound }) => {
    let anonymous: AnyClient;
    let user: AnyClient;
    beforeAll(async () => {
      anonymous = (await connect(server.url)) as unknown as AnyClient;
      user = (await connect(server.url, token)) as unknown as AnyClient;
    });
    afterAll(async () => {
      await anonymous.close();
      await user.close();
    });

    it('resources/list names the schema and the movie card to everyone and the watch list to a signed-in caller', async () => {
      expect((await anonymous.listResources()).resources.map((r) => r.uri)).toEqual([
        'moviedb://schema',
        'ui://moviedb/card',
      ]);
      expect((await user.listResources()).resources.map((r) => r.uri)).toEqual([
        'moviedb://schema',
        'moviedb://me/watchlist',
        'ui://moviedb/card',
      ]);
      expect((await anonymous.listResourceTemplates()).resourceTemplates).toEqual([
        expect.objectContaining({
          uriTemplate: 'moviedb://movies/{id}',
          name: 'movie',
          mimeType: 'application/json',
        }),
      ]);
    });

    it('the movie card is an MCP App that getMovie and searchMovies link, self-contained under a strict policy', async () => {
      const listed = (await anonymous.listResources()).resources as Array<{ uri: string; mimeType?: string }>;
      expect(listed.find((r) => r.uri === 'ui://moviedb/card')).toMatchObject({
        mimeType: 'text/html;profile=mcp-app',
      });
      const tools = (await (anonymous as unknown as ToolLister).listTools()).tools;
      for (const name of ['getMovie', 'searchMovies'])
        expect(tools.find((t) => t.name === name)?._meta).toEqual({
          ui: { resourceUri: 'ui://moviedb/card' },
        });
      expect(tools.find((t) => t.name === 'recommendMoviesForMood')?._meta).toBeUndefined();
      const { contents } = await anonymous.readResource({ uri: 'ui://moviedb/card' });
      const card = contents[0] as { mimeType?: string; text?: string; _meta?: unknown };
      expect(card).toMatchObject({
        uri: 'ui://moviedb/card',
        mimeType: 'text/html;profile=mcp-app',
        _meta: {
          ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] } },
        },
      });
      expect(card.text).toMatch(/^<!DOCTYPE html>/);
      expect(card.text).toMatch(
        /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/,
      );
      // Nothing is loaded from anywhere: no src or href attribute, no URL but the ui:// one.
      expect(card.text).not.toMatch(/\s(src|href)=/);
      expect(card.text).not.toMatch(/https?:\/\//);
    });

    it('the schema resource is the SDL', async () => {
      const { contents } = await anonymous.readResource({ uri: 'moviedb://schema' });
      expect(contents[0]).toMatchObject({ uri: 'moviedb://schema', mimeType: 'application/graphql' });
      expect(contents[0]!.text).toContain('recommendMoviesForMood(');
      expect(contents[0]!.text).toMatch(/^type Movie implements Content \{/m);
    });

    it('a movie by URI is read through the pipeline; an unknown id or URI is resource-not-found', async () => {
      const { contents } = await anonymous.readResource({ uri: 'moviedb://movies/1' });
      expect(contents[0]).toMatchObject({ uri: 'moviedb://movies/1', mimeType: 'application/json' });
      expect(JSON.parse(contents[0]!.text!)).toMatchObject({
        id: '1',
        title: 'The Shawshank Redemption',
        releaseYear: 1994,
        directors: [{ name: 'Frank Darabont' }],
      });
      for (const uri of [
        'moviedb://movies/999999',
        // Past the largest id storage holds: not found like any other, never BAD_REQUEST "Invalid id".
        'moviedb://movies/9999999999',
        'moviedb://movies/2147483648',
        'moviedb://movies/abc',
        'moviedb://movies/01',
        'moviedb://nothing',
        'file:///etc/passwd',
      ]) {
        const error = await errorOf(anonymous.readResource({ uri }));
        expect(error.code, uri).toBe(notFound);
        expect(error.data, uri).toEqual({ uri });
      }
      expect((await errorOf(anonymous.readResource({ uri: 'moviedb://movies/999999' }))).message).toBe(
        'Entity Movie not found for id: 999999',
      );
      expect((await errorOf(anonymous.readResource({ uri: 'moviedb://movies/9999999999' }))).message).toBe(
        'Entity Movie not found for id: 9999999999',
      );
      // The largest id storage holds is still looked up (and is simply not there).
      expect((await errorOf(anonymous.readResource({ uri: 'moviedb://movies/2147483647' }))).message).toBe(
        'Entity Movie not found for id: 2147483647',
      );
    });

    it('an unknown URI of 5,000 characters is quoted at most 200 characters long, message and data.uri', async () => {
      const uri = `moviedb://${'x'.repeat(5_000)}`;
      const quoted = `${uri.slice(0, 200)}…`;
      const error = await errorOf(anonymous.readResource({ uri }));
      expect(error.code).toBe(notFound);
      expect(error.message).toBe(`Resource not found: ${quoted}`);
      expect(error.data).toEqual({ uri: quoted });
    });

    it('the watch list is the caller’s; anonymous readers get the classified UNAUTHORIZED refusal', async () => {
      const { contents } = await user.readResource({ uri: 'moviedb://me/watchlist' });
      expect(JSON.parse(contents[0]!.text!)).toEqual([]);
      const refusal = await errorOf(anonymous.readResource({ uri: 'moviedb://me/watchlist' }));
      expect(refusal).toEqual({
        code: -32001,
        message: 'Sign in to use watchlist',
        data: { classification: 'UNAUTHORIZED', retryable: false },
      });
    });

    it('prompts/list offers plan-movie-night with its arguments; prompts/get depends on who asks', async () => {
      const { prompts } = await anonymous.listPrompts();
      expect(prompts).toEqual([
        expect.objectContaining({
          name: 'plan-movie-night',
          arguments: [
            expect.objectContaining({ name: 'mood', required: true }),
            expect.objectContaining({ name: 'excludeWatched', required: false }),
          ],
        }),
      ]);
      const signedIn = await user.getPrompt({
        name: 'plan-movie-night',
        arguments: { mood: 'comfort', excludeWatched: 'true' },
      });
      const text = signedIn.messages[0]!.content.text!;
      expect(signedIn.messages[0]!.role).toBe('user');
      expect(text).toContain('recommendMoviesForMood with {"mood":"COMFORT","excludeWatched":true}');
      expect(text).toContain('addToWatchlist');
      expect(text).toContain('idempotencyKey');
      const anonymousText = (
        await anonymous.getPrompt({ name: 'plan-movie-night', arguments: { mood: 'HORROR' } })
      ).messages[0]!.content.text!;
      expect(anonymousText).toContain('{"mood":"HORROR"}');
      expect(anonymousText).toContain('needs sign-in');
      expect(anonymousText).not.toContain('addToWatchlist with');
    });

    it('an unknown prompt, a missing or unknown mood, an unknown argument are -32602', async () => {
      for (const params of <Array<{ name: string; arguments: Record<string, string> }>>[
        { name: 'plan-a-heist', arguments: { mood: 'COMFORT' } },
        { name: 'plan-movie-night', arguments: {} },
        { name: 'plan-movie-night', arguments: { mood: 'SLEEPY' } },
        { name: 'plan-movie-night', arguments: { mood: 'COMFORT', guests: '4' } },
        { name: 'plan-movie-night', arguments: { mood: 'COMFORT', excludeWatched: 'maybe' } },
      ]) {
        const error = await errorOf(anonymous.getPrompt(params));
        expect(error.code, JSON.stringify(params)).toBe(-32602);
      }
    });

    it('completion/complete offers the moods matching what was typed, case-insensitively', async () => {
      const complete = (value: string, name = 'mood') =>
        anonymous.complete({
          ref: { type: 'ref/prompt', name: 'plan-movie-night' },
          argument: { name, value },
        });
      expect((await complete('co')).completion).toEqual({
        values: ['COMFORT', 'COMEDY'],
        total: 2,
        hasMore: false,
      });
      expect((await complete('')).completion.values).toEqual([
        'COMFORT',
        'ADVENTURE',
        'ROMANCE',
        'HORROR',
        'THOUGHTFUL',
        'COMEDY',
      ]);
      expect((await complete('x')).completion.values).toEqual([]);
      expect((await complete('t', 'excludeWatched')).completion.values).toEqual(['true']);
      const movieId = await anonymous.complete({
        ref: { type: 'ref/resource', uri: 'moviedb://movies/{id}' },
        argument: { name: 'id', value: '1' },
      });
      expect(movieId.completion.values).toEqual([]);
      const unknown = await errorOf(
        anonymous.complete({
          ref: { type: 'ref/prompt', name: 'nope' },
          argument: { name: 'mood', value: '' },
        }),
      );
      expect(unknown.code).toBe(-32602);
    });
  });
});

describe('resources in stateless mode (a fresh server per 2025 request)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { MCP_MODE: 'stateless' } });
  });
  afterAll(() => server.stop());

  const post = async (method: string, params: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
    });
    return (await response.json()) as {
      result?: Record<string, unknown>;
      error?: { code: number; data?: unknown };
    };
  };

  it('reads answer as in a session: a movie, and -32002 for an unknown one', async () => {
    const movie = await post('resources/read', { uri: 'moviedb://movies/2' });
    expect(JSON.stringify(movie.result)).toContain('The Godfather');
    expect((await post('resources/read', { uri: 'moviedb://movies/999999' })).error).toMatchObject({
      code: -32002,
      data: { uri: 'moviedb://movies/999999' },
    });
    const prompt = await post('prompts/get', { name: 'plan-movie-night', arguments: { mood: 'COMEDY' } });
    expect(JSON.stringify(prompt.result)).toContain('{\\"mood\\":\\"COMEDY\\"}');
  });
});
