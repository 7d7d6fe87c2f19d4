import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { captureLogs } from '../helpers/log-capture.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(dialects)('MCP tools over Streamable HTTP on %s', (dialect) => {
  let server: TestServer;
  let user: Client;
  let anonymous: Client;
  let userToken: string;
  const logs = captureLogs();
  const results = new Map<string, unknown[]>();
  /** Tools whose tools.json `text` renders a full success as a sentence instead of the JSON. */
  const RENDERED = new Set([
    'recommendMoviesForMood',
    'searchMovies',
    'myWatchlist',
    'addToWatchlist',
    'setWatchStatus',
    'removeFromWatchlist',
  ]);
  const textOf = (result: { content: unknown }) =>
    (result.content as { type: string; text: string }[])[0]!.text;

  beforeAll(async () => {
    server = await startTestServer(dialect, { logger: logs.logger });
    userToken = (await server.newUser()).token;
    user = await connectClient(server.url, userToken);
    anonymous = await connectClient(server.url);
  });
  afterAll(async () => {
    await user.close();
    await anonymous.close();
    await server.stop();
  });

  /** Calls through the real client and keeps every result for the outputSchema check at the end. */
  const call = async <T = unknown>(client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = await callTool<T>(client, name, args);
    results.set(name, [...(results.get(name) ?? []), result.structuredContent]);
    // The text block is the same JSON as structuredContent, or (a tool that opts in, on full success)
    // its short rendering; with errors it starts with a line per error, classification first, and a
    // total failure is those lines alone (error-text.test.ts).
    const text = textOf(result);
    const { data, errors } = result.structuredContent;
    if (errors.length > 0) expect(text.startsWith(`${errors[0]!.classification} (`)).toBe(true);
    if (errors.length > 0 && data === null) expect(text).not.toContain('{');
    else if (errors.length > 0)
      expect(JSON.parse(text.split('\n').at(-1)!)).toEqual(result.structuredContent);
    else if (RENDERED.has(name)) expect(text).not.toMatch(/^[[{]/);
    else expect(JSON.parse(text)).toEqual(result.structuredContent);
    return result;
  };

  it('recommendMoviesForMood succeeds with data, no errors and isError false', async () => {
    type Movie = { id: string; title: string; releaseYear: number; rating: number | null };
    const result = await call<Movie[]>(anonymous, 'recommendMoviesForMood', { mood: 'HORROR' });
    expect(result.isError).toBe(false);
    // Its text block is the short rendering tools.json asks for, built from the same data.
    const movies = result.structuredContent.data;
    expect(textOf(result)).toBe(
      `9 movies: ${movies.map((m) => `${m.title} (${m.releaseYear}, ${m.rating ?? '?'}; id ${m.id})`).join(', ')}`,
    );
    expect(result.structuredContent.errors).toEqual([]);
    expect(result.structuredContent.data.map((m) => m.id)).toEqual([
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
  });

  it('recommendMoviesForMood with an unknown mood is a tool error naming mood, not a protocol error', async () => {
    const result = await call(anonymous, 'recommendMoviesForMood', { mood: 'SLEEPY' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      retryable: false,
      extensions: { field: 'mood' },
    });
    expect(result.structuredContent.errors[0]!.message).toMatch(/mood.*COMFORT/);
  });

  it('summarizeMovieReviews answers the summary, and sends increasing progress when asked', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await user.callTool(
      { name: 'summarizeMovieReviews', arguments: { movieId: '1' } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({
      data: { movieId: '1', reviewCount: 8, averageScore: 9.375 },
      errors: [],
    });
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(progress.every((p) => p.total === 3)).toBe(true);
    expect(progress.map((p) => p.message)).toEqual(['Loading reviews', 'Summarising reviews', 'Done']);
  });

  it('summarizeMovieReviews of a movie that does not exist is NOT_FOUND with data null', async () => {
    const result = await call(anonymous, 'summarizeMovieReviews', { movieId: '999' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      data: null,
      errors: [
        {
          message: 'Entity Movie not found for id: 999',
          path: ['summarizeMovieReviews'],
          classification: 'NOT_FOUND',
          retryable: false,
          extensions: { entityType: 'Movie' },
        },
      ],
    });
    expect((result.content as { text: string }[])[0]!.text).toBe(
      'NOT_FOUND (not retryable): no movie with id 999 (argument "movieId"). Look the id up with searchMovies.',
    );
  });

  it('addToWatchlist adds with the caller’s identity; the same title twice says "already in your watch list"', async () => {
    const first = await call<{ id: string; status: string; content: { title: string } }>(
      user,
      'addToWatchlist',
      {
        subject: { movieId: '3' },
      },
    );
    expect(first.isError).toBe(false);
    expect(first.structuredContent.data).toMatchObject({
      status: 'WANT_TO_WATCH',
      content: { title: 'The Godfather Part II' },
    });
    // The text a model reads names the title and the entry id the other watch-list tools take.
    expect(textOf(first)).toBe(
      `Added The Godfather Part II to the watch list as entry id ${first.structuredContent.data.id} (WANT_TO_WATCH).`,
    );
    const second = await call(user, 'addToWatchlist', { subject: { movieId: '3' } });
    expect(second.isError).toBe(true);
    expect(second.structuredContent.errors[0]).toMatchObject({
      message: 'This movie is already in your watch list',
      classification: 'BAD_REQUEST',
      extensions: { field: 'movieId' },
    });
  });

  it('addToWatchlist without identity is an UNAUTHORIZED tool error, not a transport error', async () => {
    const result = await call(anonymous, 'addToWatchlist', { subject: { movieId: '3' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent.errors[0]).toMatchObject({
      message: 'Sign in to use addToWatchlist',
      classification: 'UNAUTHORIZED',
    });
  });

  it('addToWatchlist rejects both @oneOf keys, an explicit null and unknown arguments before running', async () => {
    for (const args of [
      { subject: { movieId: '4', tvShowId: '1' } },
      { subject: { movieId: '4', tvShowId: null } },
      { subject: {} },
      { subject: { movieId: '4' }, extra: true },
    ]) {
      const result = await call(user, 'addToWatchlist', args);
      expect(result.isError).toBe(true);
      expect(result.structuredContent.errors[0]!.classification).toBe('BAD_REQUEST');
      expect(result.structuredContent.errors[0]!.message).toMatch(/^Invalid arguments for addToWatchlist/);
    }
    expect(await server.count('watchlist_items', 'movie_id = 4')).toBe(0);
  });

  it('getMovie answers the movie; an unknown id is NOT_FOUND with data null; a blank id names the argument', async () => {
    const found = await call<{ title: string }>(anonymous, 'getMovie', { id: '1' });
    expect(found.structuredContent.data.title).toBe('The Shawshank Redemption');
    const numeric = await call<{ title: string }>(anonymous, 'getMovie', { id: 2 });
    expect(numeric.structuredContent.data.title).toBe('The Godfather');
    const missing = await call(anonymous, 'getMovie', { id: '999' });
    expect(missing.structuredContent).toMatchObject({
      data: null,
      errors: [{ classification: 'NOT_FOUND', extensions: { entityType: 'Movie' } }],
    });
    const blank = await call(anonymous, 'getMovie', { id: '   ' });
    expect(blank.isError).toBe(true);
    expect(blank.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: { field: 'id' },
    });
    const empty = await call(anonymous, 'getMovie', { id: '' });
    expect(empty.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: { field: 'id' },
    });
    const none = await call(anonymous, 'getMovie', {});
    expect(none.structuredContent.errors[0]!.message).toMatch(/missing required argument "id"/);
  });

  it('searchMovies finds ids by title and bounds the page size', async () => {
    const found = await call<{ content: { id: string; title: string }[]; totalElements: number }>(
      anonymous,
      'searchMovies',
      {
        filter: { titleContains: 'godfather' },
      },
    );
    expect(found.structuredContent.data.content.map((m) => m.title)).toEqual([
      'The Godfather',
      'The Godfather Part II',
      'The Godfather Part III',
    ]);
    expect(textOf(found)).toMatch(
      /^3 movies match, 1 pages; page 0 \(counting from 0\): The Godfather \(1972, [\d.]+; id \d+\), The Godfather Part II /,
    );
    const pastTheEnd = await call(anonymous, 'searchMovies', {
      filter: { titleContains: 'godfather' },
      page: 5,
    });
    expect(textOf(pastTheEnd)).toBe('3 movies match, 1 pages; page 5 (counting from 0) is past the last.');
    const tooBig = await call(anonymous, 'searchMovies', { size: 101 });
    expect(tooBig.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: { field: 'size' },
    });
    const sorted = await call<{ content: { id: string }[] }>(anonymous, 'searchMovies', {
      size: 3,
      sort: { field: 'RATING', order: 'DESC' },
    });
    expect(sorted.structuredContent.data.content.map((m) => m.id)).toEqual(['1', '2', '3']);
  });

  it('myWatchlist, setWatchStatus and removeFromWatchlist work on the caller’s own entries only', async () => {
    const other = await connectClient(server.url, (await server.newUser()).token);
    try {
      const added = await call<{ id: string }>(user, 'addToWatchlist', {
        subject: { tvShowId: '2' },
        status: 'WATCHED',
      });
      const itemId = added.structuredContent.data.id;
      const list = await call<{ id: string; status: string }[]>(user, 'myWatchlist');
      expect(list.structuredContent.data).toContainEqual(
        expect.objectContaining({ id: itemId, status: 'WATCHED' }),
      );
      expect(textOf(list)).toMatch(new RegExp(`^\\d+ entries: .*\\(WATCHED; entry id ${itemId}\\)`));
      expect(textOf(await call(other, 'myWatchlist'))).toBe('The watch list is empty.');
      const set = await call(user, 'setWatchStatus', { itemId, status: 'WANT_TO_WATCH' });
      expect(set.structuredContent.data).toEqual({ id: itemId, status: 'WANT_TO_WATCH' });
      expect(textOf(set)).toBe(`Entry id ${itemId} is now WANT_TO_WATCH.`);
      const foreign = await call(other, 'removeFromWatchlist', { itemId });
      expect(foreign.structuredContent.errors[0]).toMatchObject({
        classification: 'NOT_FOUND',
        extensions: { entityType: 'WatchlistItem' },
      });
      // Destructive: the first call asks (two steps for a client without elicitation), the second acts.
      const asked = await call(user, 'removeFromWatchlist', { itemId });
      expect(asked.structuredContent.errors[0]).toMatchObject({
        classification: 'BAD_REQUEST',
        extensions: {
          field: 'confirmationToken',
          target: { id: itemId, content: { title: expect.any(String) } },
        },
      });
      const confirmationToken = asked.structuredContent.errors[0]!.extensions!.confirmationToken;
      const removed = await call(user, 'removeFromWatchlist', { itemId, confirmationToken });
      expect(removed.structuredContent).toEqual({ data: true, errors: [] });
      expect(textOf(removed)).toBe('Removed the entry from the watch list.');
      const anonymousList = await call(anonymous, 'myWatchlist');
      expect(anonymousList.structuredContent.errors[0]!.classification).toBe('UNAUTHORIZED');
    } finally {
      await other.close();
    }
  });

  it('createReview writes a review; a score of 11 is rejected naming input.score; a second review is BAD_REQUEST', async () => {
    const created = await call<{ score: number }>(user, 'createReview', {
      input: { subject: { movieId: '8' }, score: 9, comment: 'Great' },
    });
    expect(created.structuredContent.data.score).toBe(9);
    const tooHigh = await call(user, 'createReview', { input: { subject: { movieId: '9' }, score: 11 } });
    expect(tooHigh.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: { field: 'input.score' },
    });
    expect(await server.count('reviews', 'movie_id = 9 and score = 11')).toBe(0);
    const again = await call(user, 'createReview', { input: { subject: { movieId: '8' }, score: 3 } });
    expect(again.structuredContent.errors[0]!.message).toBe('You have already reviewed this title');
  });

  it('an unknown tool is the JSON-RPC protocol error -32602, not an isError result', async () => {
    await expect(user.callTool({ name: 'dropAllTables', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: dropAllTables'),
    });
  });

  it('writes one audit line per call with subject, tool, argument hash, outcome and latency, never arguments or tokens', async () => {
    const before = logs.lines().filter((l) => l.tool === 'getMovie').length;
    await call(user, 'getMovie', { id: '42' });
    // The access line is written when the response has finished, which the client may see first.
    await expect.poll(() => logs.lines().filter((l) => l.tool === 'getMovie').length).toBe(before + 1);
    const audit = logs.lines().filter((l) => l.tool === 'getMovie');
    const line = audit.at(-1)!;
    expect(line).toMatchObject({ audit: 'tool_call', msg: 'request', path: '/mcp' });
    expect(line).toMatchObject({
      tool: 'getMovie',
      outcome: 'OK',
      argsHash: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // The subject is the account id the token names, not a name the user chose.
    const me = await server.graphql<{ me: { id: string } }>('{ me { id } }', undefined, userToken);
    expect(line.subject).toBe(me.body.data!.me.id);
    expect(typeof line.latencyMs).toBe('number');
    expect(logs.text()).not.toContain(userToken);
    expect(logs.text()).not.toContain('"id":"42"');
  });

  it('a backend failure is a tool error with a safe sentence and a reference, never -32603 or a leak', async () => {
    const client = await connectClient(server.url);
    try {
      // Break the storage under getMovie's cast: a failure nobody planned for.
      await sql`drop table movie_cast`.execute(server.store.handle.db);
      const result = await callTool(client, 'getMovie', { id: '1' });
      expect(result.isError).toBe(true);
      const error = result.structuredContent.errors[0]!;
      expect(error.classification).toBe('INTERNAL_ERROR');
      expect(error.message).toMatch(/^An unexpected error occurred\. Reference: [0-9a-f-]{36}$/);
      expect(JSON.stringify(result)).not.toMatch(/movie_cast|sqlite|postgres|select|relation|no such table/i);
    } finally {
      await client.close();
    }
  });

  it('every result seen in these tests validates against its tool’s outputSchema', async () => {
    const { tools } = await user.listTools();
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    let checked = 0;
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema!);
      for (const content of results.get(tool.name) ?? []) {
        expect(validate(content), `${tool.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect([...results.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
  });
});
