/**
 * What a model reads when its framework shows it only the text block (docs/errors.md, What a model
 * reads): every error's text starts with its classification and whether to retry, names the argument at
 * fault where there is one and says what to do next; a partial answer's lines come before its JSON, and
 * the whole text stays within the response budget. Through a real MCP client, on every store.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const textOf = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text;
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url).pathname;

describe.each(dialects)('error text blocks on %s', (dialect) => {
  let server: TestServer;
  let user: Client;
  let anonymous: Client;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    user = await connectClient(server.url, (await server.newUser()).token);
    anonymous = await connectClient(server.url);
  });
  afterAll(async () => {
    await user.close();
    await anonymous.close();
    await server.stop();
  });

  it('NOT_FOUND says not retryable, names the argument holding the unknown id, and where to find ids', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['getMovie', { id: '99999' }, 'id'],
      ['summarizeMovieReviews', { movieId: '99999' }, 'movieId'],
      ['addToWatchlist', { subject: { movieId: '99999' } }, 'subject.movieId'],
    ];
    for (const [tool, args, argument] of cases) {
      const result = await callTool(user, tool, args);
      expect(result.isError, tool).toBe(true);
      expect(textOf(result), tool).toBe(
        `NOT_FOUND (not retryable): no movie with id 99999 (argument "${argument}"). Look the id up with searchMovies.`,
      );
      // structuredContent keeps the contract's message word for word.
      expect(result.structuredContent.errors[0]!.message).toBe('Entity Movie not found for id: 99999');
    }
    // An entry id is looked for where a model may have given a movie id: both writes name the argument
    // (the removal's answer comes from its confirmation step's preview) and say where entry ids are.
    for (const [tool, args] of [
      ['setWatchStatus', { itemId: '99999', status: 'WATCHED' }],
      ['removeFromWatchlist', { itemId: '99999' }],
    ] as const) {
      expect(textOf(await callTool(user, tool, args)), tool).toBe(
        'NOT_FOUND (not retryable): no watch list entry with id 99999 (argument "itemId"). Entry ids (not movie ids) are listed by myWatchlist; do not call again with the same one.',
      );
    }
  });

  it('an argument that fails validation is BAD_REQUEST naming it, and nothing runs', async () => {
    const result = await callTool(user, 'searchMovies', { size: 500 });
    expect(textOf(result)).toBe(
      'BAD_REQUEST (not retryable): Invalid arguments for searchMovies: "size" must be <= 100 (argument "size"). Fix that argument, then call again.',
    );
    const nested = await callTool(user, 'addToWatchlist', { subject: { movieId: '4', tvShowId: '1' } });
    expect(textOf(nested)).toMatch(
      /^BAD_REQUEST \(not retryable\): Invalid arguments for addToWatchlist: .*\(argument "subject"\)\. Fix that argument, then call again\.$/,
    );
  });

  it('a duplicate names the argument path the field is at, and says the goal is met rather than to fix it', async () => {
    await callTool(user, 'addToWatchlist', { subject: { movieId: '5' } });
    const again = await callTool(user, 'addToWatchlist', { subject: { movieId: '5' } });
    expect(textOf(again)).toBe(
      'BAD_REQUEST (not retryable): This movie is already in your watch list (argument "subject.movieId"). It is there already: nothing was written; treat it as done.',
    );
    await callTool(user, 'createReview', { input: { subject: { movieId: '5' }, score: 6 } });
    const reviewed = await callTool(user, 'createReview', { input: { subject: { movieId: '5' }, score: 7 } });
    expect(textOf(reviewed)).toBe(
      'BAD_REQUEST (not retryable): You have already reviewed this title (argument "input.subject.movieId"). It is there already: nothing was written; treat it as done.',
    );
  });

  it('UNAUTHORIZED says to sign in', async () => {
    const result = await callTool(anonymous, 'addToWatchlist', { subject: { movieId: '3' } });
    expect(textOf(result)).toBe(
      'UNAUTHORIZED (not retryable): Sign in to use addToWatchlist. Ask the user to sign in, then call again with their bearer token.',
    );
  });

  it('the two-step confirmation starts with its classification, says it needs confirmation (not "not retryable") and keeps the whole token in the text', async () => {
    const added = await callTool<{ id: string }>(user, 'addToWatchlist', { subject: { movieId: '49' } });
    const asked = await callTool(user, 'removeFromWatchlist', { itemId: added.structuredContent.data.id });
    const token = asked.structuredContent.errors[0]!.extensions!.confirmationToken as string;
    expect(textOf(asked)).toMatch(
      /^BAD_REQUEST \(needs confirmation\): Nothing done yet: removeFromWatchlist asks the user first\./,
    );
    expect(textOf(asked)).toContain(`"confirmationToken": "${token}"`);
    expect(textOf(asked)).not.toContain('(argument ');
  });

  it('successful text renderings are unchanged: a sentence for tools that have one, the JSON otherwise', async () => {
    const movie = await callTool(user, 'getMovie', { id: '1' });
    expect(JSON.parse(textOf(movie))).toEqual(movie.structuredContent);
    const mood = await callTool(user, 'recommendMoviesForMood', { mood: 'HORROR' });
    expect(textOf(mood)).toMatch(/^9 movies: /);
  });
});

describe('partial answers and the response budget', () => {
  const BUDGET = 1200;
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { OPERATIONS_DIR: fixture('operations-partial'), MCP_RESULT_MAX_CHARS: String(BUDGET) },
    });
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  it('a partial answer starts with its error lines, then the JSON of data and errors', async () => {
    const result = await callTool(client, 'moviesByIds', { ids: ['1', '999'] });
    const [line, json] = textOf(result).split('\n');
    expect(line).toBe(
      'NOT_FOUND (not retryable): no movies with ids 999 (argument "ids[1]"). Look the id up with searchMovies.',
    );
    expect(JSON.parse(json!)).toEqual(result.structuredContent);
  });

  it('a partial answer cut to the budget keeps its error lines, and the whole text fits the budget', async () => {
    const ids = [...Array.from({ length: 40 }, (_, i) => String(i + 1)), '998', '999'];
    const result = await callTool(client, 'moviesByIds', { ids });
    const text = textOf(result);
    expect(text.length).toBeLessThanOrEqual(BUDGET);
    const [line, json] = text.split('\n');
    expect(line).toBe(
      'NOT_FOUND (not retryable): no movies with ids 998, 999 (arguments "ids[40]", "ids[41]"). Look the id up with searchMovies.',
    );
    const answer = JSON.parse(json!) as { truncated?: { returned: number } };
    expect(answer).toEqual(result.structuredContent);
    // More than one item kept: the budget, not the one-item floor, decided where to cut.
    expect(answer.truncated!.returned).toBeGreaterThan(1);
    expect(answer.truncated!.returned).toBeLessThan(42);
  });
});

describe('RATE_LIMITED says when to retry', () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { RATE_LIMIT_USER_OPERATIONS: '2', RATE_LIMIT_WINDOW_SECONDS: '30' },
    });
    client = await connectClient(server.url, (await server.newUser()).token);
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  it('past the quota: retryable after the seconds the limit gives', async () => {
    let result = await callTool(client, 'getMovie', { id: '1' });
    for (let i = 0; i < 5 && !result.isError; i += 1)
      result = await callTool(client, 'getMovie', { id: '1' });
    const seconds = result.structuredContent.errors[0]!.extensions!.retryAfterSeconds as number;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(textOf(result)).toMatch(new RegExp(`^RATE_LIMITED \\(retryable after ${seconds} s\\): `));
  });
});
