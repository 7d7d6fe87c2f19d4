/**
 * tools/list as a signed-in caller sees it (every tool), through real clients of both eras: derived from
 * operations/*.graphql (docs/contract.md, MCP tools), lean (docs/authoring-tools.md, What the list
 * costs an agent: each thing said once, the whole list at most 3,500 estimated tokens), and still carrying what an agent needs: argument and enum meanings,
 * bounds, @oneOf, defaults, required, and every output field.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUCTIONS } from '../../src/mcp/mcp-server.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The size target: the whole tools/list answer, in estimated tokens (characters / 4). */
const TOKEN_BUDGET = 3500;
const tokensOf = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

let server: TestServer;
let client: Client;
let token: string;
let listResult: Awaited<ReturnType<Client['listTools']>>;
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
const output = (name: string) => byName(name).outputSchema as unknown as Schema;
/** The non-null branch of a nullable schema (written as anyOf [schema, null]). */
const core = (schema: Record<string, unknown> | undefined) =>
  ((schema?.anyOf as Record<string, unknown>[] | undefined)?.[0] ?? schema) as Record<string, unknown> & {
    properties?: Record<string, Record<string, unknown>>;
    items?: Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };
  };

beforeAll(async () => {
  server = await startTestServer('sqlite');
  token = await server.login('user', 'user123');
  client = await connectClient(server.url, token);
  listResult = await client.listTools();
  tools = listResult.tools;
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

  it(`the whole list is at most ${TOKEN_BUDGET} estimated tokens, for a 2025 and a 2026-07-28 client alike`, async () => {
    // Measured on main before this change: 31,464 characters (7,866 tokens), the same for both eras.
    expect(tokensOf(listResult)).toBeLessThanOrEqual(TOKEN_BUDGET);
    const modern = await connectModernClient(server.url, { authorization: `Bearer ${token}` });
    try {
      const modernResult = await modern.listTools();
      expect(modernResult.tools).toEqual(tools);
      // The whole 2026 answer, its ttlMs, cacheScope, resultType and _meta included.
      expect(tokensOf(modernResult)).toBeLessThanOrEqual(TOKEN_BUDGET);
    } finally {
      await modern.close();
    }
  });

  it('the error envelope is said once, in the instructions; each tool carries only its compact shape', () => {
    for (const field of ['message', 'path', 'classification', 'retryable', 'extensions'])
      expect(INSTRUCTIONS).toContain(field);
    for (const tool of tools) {
      expect(output(tool.name).properties.errors).toEqual({
        type: 'array',
        items: { type: 'object' },
      });
    }
    expect(client.getInstructions()).toBe(INSTRUCTIONS);
  });

  it('no schema uses a type array (portable to single-type dialects, as MCP Inspector checks)', () => {
    expect(JSON.stringify(tools)).not.toMatch(/"type":\[/);
  });

  it('no description repeats the title or another description of the same tool', () => {
    for (const tool of tools) {
      const descriptions: string[] = [];
      JSON.stringify(tool, (key, value: unknown) => {
        if (key === 'description' && typeof value === 'string') descriptions.push(value);
        return value;
      });
      expect(new Set(descriptions).size, tool.name).toBe(descriptions.length);
      expect(tool.annotations).not.toHaveProperty('title');
      // The argument's own description, not the type's beside it (they said the same thing twice).
      expect(JSON.stringify(tool), tool.name).not.toContain('The broad category of a movie or TV show');
    }
  });

  it('every inputSchema and outputSchema is valid JSON Schema (2020-12); arguments stay closed to unknown properties', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name} input`).toBe(true);
      expect(ajv.validateSchema(tool.outputSchema!), `${tool.name} output`).toBe(true);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema!.required).toEqual(['data', 'errors']);
    }
  });

  it('names, titles, descriptions and annotations follow the contract (docs/contract.md, MCP tools)', () => {
    expect(byName('recommendMoviesForMood').title).toBe('Recommend Movies For Mood');
    expect(byName('recommendMoviesForMood').description).toMatch(/^Recommends up to 10 catalogue movies/);
    for (const name of [
      'recommendMoviesForMood',
      'summarizeMovieReviews',
      'searchMovies',
      'getMovie',
      'myWatchlist',
    ]) {
      expect(byName(name).annotations).toEqual({
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    expect(byName('addToWatchlist').annotations).toEqual({
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

  it('inputSchema carries enums with their values’ meanings (each said once), defaults and required', () => {
    const mood = input('recommendMoviesForMood').properties.mood!;
    expect(mood.enum).toEqual(['COMFORT', 'ADVENTURE', 'ROMANCE', 'HORROR', 'THOUGHTFUL', 'COMEDY']);
    expect(mood.description).toMatch(/^The mood to suit\. COMFORT: Easy, warm viewing/);
    expect(input('recommendMoviesForMood').required).toEqual(['mood']);
    expect(input('recommendMoviesForMood').properties.excludeWatched).toMatchObject({
      type: 'boolean',
      default: false,
    });
    // "ACTION: Action: fights…" named the value twice; a label that only explains itself is dropped.
    const genre = core(input('searchMovies').properties.filter).properties!.genre!;
    expect(genre.description).toContain('ACTION: fights, chases and set pieces.');
    expect(genre.description).toContain('SCIFI: Science fiction: future');
    // An optional argument is advertised without its null branch: leaving it out says the same.
    expect(input('searchMovies').properties.size).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Movies per page, 1 to 100.',
      default: 10,
    });
    expect(input('searchMovies').required).toBeUndefined();
    // An id is advertised as a string; arguments are validated against everything GraphQL accepts.
    expect(input('getMovie').properties.id).toEqual({ type: 'string', description: "The movie's id." });
  });

  it('@oneOf becomes a choice of one-key objects, and directive bounds become JSON Schema bounds', () => {
    // Not minProperties/maxProperties: strict converters make every key required, which contradicts them.
    const subject = input('addToWatchlist').properties.subject!;
    expect(subject).toEqual({
      description: 'The title to add: exactly one of movieId or tvShowId.',
      anyOf: ['movieId', 'tvShowId'].map((key) => ({
        type: 'object',
        properties: { [key]: { type: 'string', description: expect.any(String) } },
        required: [key],
        additionalProperties: false,
      })),
    });
    const review = core(input('createReview').properties.input);
    expect(review.properties!.score).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(review.properties!.comment).toMatchObject({ type: 'string', maxLength: 2000 });
    expect(review.required).toEqual(['subject', 'score']);
    const filter = core(input('searchMovies').properties.filter);
    expect(filter.properties!.minYear).toMatchObject({ minimum: 1888, maximum: 2100 });
  });

  it('outputSchema is the {data, errors} envelope with every selected field, its type and nullability', () => {
    const movie = core(output('getMovie').properties.data);
    expect(output('getMovie').properties.data!.anyOf).toContainEqual({ type: 'null' });
    expect(Object.keys(movie.properties!)).toEqual([
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
    expect(movie.properties!.rating).toEqual({ anyOf: [{ type: 'number' }, { type: 'null' }] });
    expect(movie.properties!.genre!.enum).toEqual(expect.arrayContaining(['ACTION', 'WESTERN', null]));
    // Fields selected on one member of an interface are optional: there, and only there, required says so.
    const content = core(core(output('myWatchlist').properties.data).items).properties!.content!;
    expect(content.required).toEqual(['__typename', 'title', 'genre', 'rating']);
    expect(Object.keys(content.properties as object)).toEqual(
      expect.arrayContaining(['releaseYear', 'startYear']),
    );
  });

  it('arguments are still checked against everything GraphQL accepts: an integer id, a null optional argument', async () => {
    const movie = await callTool<{ title: string }>(client, 'getMovie', { id: 1 });
    expect(movie.structuredContent.data.title).toBe('The Shawshank Redemption');
    const page = await callTool<{ size: number }>(client, 'searchMovies', { size: null });
    expect(page.structuredContent.data.size).toBe(10);
    const unknown = await callTool(client, 'searchMovies', { limit: 3 });
    expect(unknown.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      message: 'Invalid arguments for searchMovies: unknown argument "limit"',
    });
  });
});
