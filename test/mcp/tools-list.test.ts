import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: Client;
let tools: Tool[];
const byName = (name: string) => tools.find((t) => t.name === name)!;
type Schema = {
  properties: Record<
    string,
    Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> }
  >;
  required?: string[];
};
const input = (name: string) => byName(name).inputSchema as unknown as Schema;
/** The non-null branch of a nullable schema (written as anyOf [schema, null]). */
const core = (schema: Record<string, unknown> | undefined) =>
  ((schema?.anyOf as Record<string, unknown>[] | undefined)?.[0] ?? schema) as Record<string, unknown> & {
    properties?: Record<string, Record<string, unknown>>;
  };

beforeAll(async () => {
  server = await startTestServer('sqlite');
  client = await connectClient(server.url);
  tools = (await client.listTools()).tools;
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

describe('tools/list', () => {
  it('lists exactly the curated operations, derived from operations/*.graphql (snapshot)', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'addToWatchlist',
        'createReview',
        'getMovie',
        'myWatchlist',
        'recommendMoviesForMood',
        'removeFromWatchlist',
        'searchMovies',
        'setWatchStatus',
        'summarizeMovieReviews',
      ].sort(),
    );
    expect(tools).toMatchSnapshot();
  });

  it('no schema uses a type array (portable to single-type dialects, as MCP Inspector checks)', () => {
    expect(JSON.stringify(tools)).not.toMatch(/"type":\[/);
  });

  it('every inputSchema and outputSchema is valid JSON Schema (2020-12) and closed to unknown properties', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name} input`).toBe(true);
      expect(ajv.validateSchema(tool.outputSchema!), `${tool.name} output`).toBe(true);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema!.required).toEqual(['data', 'errors']);
    }
  });

  it('names, titles, descriptions and annotations follow SPEC section 6', () => {
    expect(byName('recommendMoviesForMood').title).toBe('Recommend Movies For Mood');
    expect(byName('recommendMoviesForMood').description).toMatch(/^Recommends up to 10 catalogue movies/);
    for (const name of [
      'recommendMoviesForMood',
      'summarizeMovieReviews',
      'searchMovies',
      'getMovie',
      'myWatchlist',
    ]) {
      expect(byName(name).annotations).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    expect(byName('addToWatchlist').annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(byName('removeFromWatchlist').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName('createReview').annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('inputSchema carries enums with their values’ descriptions, defaults and required', () => {
    const mood = input('recommendMoviesForMood').properties.mood!;
    expect(mood.enum).toEqual(['COMFORT', 'ADVENTURE', 'ROMANCE', 'HORROR', 'THOUGHTFUL', 'COMEDY']);
    expect(mood.description).toMatch(/COMFORT: Easy, warm viewing/);
    expect(input('recommendMoviesForMood').required).toEqual(['mood']);
    expect(input('recommendMoviesForMood').properties.excludeWatched!.default).toBe(false);
    expect(input('searchMovies').properties.size).toMatchObject({ default: 10 });
    expect(core(input('searchMovies').properties.size)).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(input('searchMovies').properties.size!.anyOf).toContainEqual({ type: 'null' });
    expect(input('searchMovies').required).toBeUndefined();
  });

  it('@oneOf becomes exactly one key, and directive bounds become JSON Schema bounds', () => {
    const subject = input('addToWatchlist').properties.subject!;
    expect(subject).toMatchObject({
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      additionalProperties: false,
    });
    expect(Object.keys(subject.properties!)).toEqual(['movieId', 'tvShowId']);
    for (const key of ['movieId', 'tvShowId'])
      expect(subject.properties![key]!.anyOf).not.toContainEqual({ type: 'null' });
    const review = input('createReview').properties.input!;
    expect(review.properties!.score).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(core(review.properties!.comment)).toMatchObject({ type: 'string', maxLength: 2000 });
    expect(review.required).toEqual(['subject', 'score']);
    const filter = core(input('searchMovies').properties.filter);
    expect(core(filter.properties!.minYear)).toMatchObject({ minimum: 1888, maximum: 2100 });
  });

  it('outputSchema is the {data, errors} envelope with the selection’s shape', () => {
    const output = byName('getMovie').outputSchema as unknown as Schema;
    expect(output.properties.data!.anyOf).toContainEqual({ type: 'null' });
    expect(Object.keys(core(output.properties.data).properties!)).toEqual([
      'id',
      'title',
      'releaseYear',
      'genre',
      'rating',
      'runtime',
      'tmdbId',
      'reviewCount',
      'directors',
      'cast',
    ]);
    const error = (output.properties.errors as { items: { required: string[] } }).items;
    expect(error.required).toEqual(['message', 'path', 'classification', 'retryable']);
  });
});
