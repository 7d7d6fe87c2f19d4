/**
 * Tool schemas through a strict converter (docs/authoring-tools.md, Schemas every converter keeps):
 * OpenAI Agents (`@openai/agents`, pinned) lists the tools over MCP and converts each inputSchema to
 * OpenAI's strict subset, where every property is required and an optional one becomes nullable. Each of
 * them must convert strictly (no silent fallback to non-strict), keep no keyword that contradicts
 * "every property required", and keep its meaning: @oneOf still means exactly one of its keys, required
 * stays required and non-null, enums and bounds are kept. And the calls a strict model makes (every key
 * present, the unused ones null) succeed, through the converter's own call path and sent as they are.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import {
  Agent,
  MCPServerStreamableHttp,
  RunContext,
  getAllMcpTools,
  type FunctionTool,
} from '@openai/agents';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

type Schema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  items?: Schema;
};

/** What a value's schema constrains, beside its type: these must survive the conversion unchanged. */
const CONSTRAINTS = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'format',
];
const constraintsOf = (schema: Schema) =>
  Object.fromEntries(CONSTRAINTS.filter((key) => key in schema).map((key) => [key, schema[key]]));

/** Keywords that cannot hold once every property is required, or that OpenAI's strict subset lacks. */
function contradictions(schema: Schema, path = '$'): string[] {
  const found: string[] = [];
  if ('minProperties' in schema || 'maxProperties' in schema)
    found.push(`${path}: minProperties/maxProperties beside "every property required"`);
  if ('oneOf' in schema || 'allOf' in schema || 'not' in schema) found.push(`${path}: oneOf/allOf/not`);
  for (const [low, high] of [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
  ] as const) {
    if (typeof schema[low] === 'number' && typeof schema[high] === 'number' && schema[low] > schema[high])
      found.push(`${path}: ${low} > ${high}`);
  }
  if (Array.isArray(schema.enum) && 'default' in schema && !schema.enum.includes(schema.default))
    found.push(`${path}: default outside enum`);
  if (schema.properties) {
    for (const key of schema.required ?? [])
      if (!(key in schema.properties)) found.push(`${path}: requires undeclared ${key}`);
    for (const [key, value] of Object.entries(schema.properties))
      found.push(...contradictions(value, `${path}.${key}`));
  }
  schema.anyOf?.forEach((branch, i) => found.push(...contradictions(branch, `${path}|${i}`)));
  if (schema.items) found.push(...contradictions(schema.items, `${path}[]`));
  return found;
}

/** The schema without the null branch a strict converter wraps an optional value in. */
function unwrapNull(schema: Schema): Schema {
  const branches = schema.anyOf?.filter((branch) => branch.type !== 'null');
  return schema.anyOf && branches?.length === 1 && schema.anyOf.length === 2 ? branches[0]! : schema;
}
const acceptsNull = (schema: Schema) => schema.anyOf?.some((branch) => branch.type === 'null') ?? false;

/**
 * Checks that `converted` means what `listed` means: the same properties, each listed-required one still
 * required and not nullable, each optional one the same value or null (null meaning "not given"), the
 * same constraints, the same choices (anyOf branches), the same items; returns what differs.
 */
function meaningLost(listed: Schema, converted: Schema, path = '$'): string[] {
  const lost: string[] = [];
  if (JSON.stringify(constraintsOf(listed)) !== JSON.stringify(constraintsOf(converted)))
    lost.push(
      `${path}: ${JSON.stringify(constraintsOf(listed))} became ${JSON.stringify(constraintsOf(converted))}`,
    );
  if (listed.properties) {
    const required = new Set(listed.required ?? []);
    if (converted.additionalProperties !== false) lost.push(`${path}: open to unknown keys`);
    for (const [key, value] of Object.entries(listed.properties)) {
      const counterpart = converted.properties?.[key];
      if (!counterpart) {
        lost.push(`${path}.${key}: missing`);
        continue;
      }
      if (required.has(key) && acceptsNull(counterpart) && !acceptsNull(value))
        lost.push(`${path}.${key}: required, but the converter lets it be null`);
      lost.push(
        ...meaningLost(value, required.has(key) ? counterpart : unwrapNull(counterpart), `${path}.${key}`),
      );
    }
  }
  if (listed.anyOf) {
    if (converted.anyOf?.length !== listed.anyOf.length) lost.push(`${path}: the choice changed`);
    else
      listed.anyOf.forEach((branch, i) =>
        lost.push(...meaningLost(branch, converted.anyOf![i]!, `${path}|${i}`)),
      );
  }
  if (listed.items) lost.push(...meaningLost(listed.items, converted.items ?? {}, `${path}[]`));
  return lost;
}

describe.each(dialects)('input schemas through OpenAI Agents’ strict converter on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let client: Client;
  let mcp: MCPServerStreamableHttp;
  let listed: McpTool[];
  let converted: FunctionTool[];
  const convertedNamed = (name: string) => converted.find((tool) => tool.name === name)!;
  const listedNamed = (name: string) => listed.find((tool) => tool.name === name)!;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = (await server.newUser()).token;
    client = await connectClient(server.url, token);
    listed = (await client.listTools()).tools;
    mcp = new MCPServerStreamableHttp({
      url: `${server.url}/mcp`,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await mcp.connect();
    converted = (await getAllMcpTools({
      mcpServers: [mcp],
      convertSchemasToStrict: true,
      runContext: new RunContext(),
      agent: new Agent({ name: 'strict' }),
    })) as FunctionTool[];
  });
  afterAll(async () => {
    await mcp.close();
    await client.close();
    await server.stop();
  });

  it('every tool converts in strict mode, with no contradictory keyword', () => {
    expect(converted.map((tool) => tool.name).sort()).toEqual(listed.map((tool) => tool.name).sort());
    for (const tool of converted) {
      expect(tool.strict, tool.name).toBe(true);
      expect(contradictions(tool.parameters as Schema), tool.name).toEqual([]);
      // Strict: every property of every object is required and none is open.
      JSON.stringify(tool.parameters, (_key, value: Schema) => {
        if (value && typeof value === 'object' && value.properties) {
          expect(value.required, tool.name).toEqual(Object.keys(value.properties));
          expect(value.additionalProperties, tool.name).toBe(false);
        }
        return value;
      });
    }
  });

  it('every tool keeps its meaning: required, enums, bounds, choices', () => {
    for (const tool of listed) {
      expect(
        meaningLost(tool.inputSchema as Schema, convertedNamed(tool.name).parameters as Schema),
        tool.name,
      ).toEqual([]);
    }
    // Spot checks of what the walk compares.
    const mood = (convertedNamed('recommendMoviesForMood').parameters as Schema).properties!.mood!;
    expect(mood.enum).toEqual(['COMFORT', 'ADVENTURE', 'ROMANCE', 'HORROR', 'THOUGHTFUL', 'COMEDY']);
    const score = unwrapNull((convertedNamed('createReview').parameters as Schema).properties!.input!)
      .properties!.score!;
    expect(score).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
  });

  it('the @oneOf subject still means exactly one of movieId or tvShowId, in both tools that take one', () => {
    const ajv = new Ajv2020({ strict: false });
    const subjects = {
      addToWatchlist: (args: unknown) => ({ subject: args, status: null, idempotencyKey: null }),
      createReview: (args: unknown) => ({
        input: { subject: args, score: 7, comment: null },
        idempotencyKey: null,
      }),
    };
    for (const [name, wrap] of Object.entries(subjects)) {
      const validate = ajv.compile(convertedNamed(name).parameters);
      const accepts = (subject: unknown) => validate(wrap(subject));
      expect(accepts({ movieId: '4' }), name).toBe(true);
      expect(accepts({ tvShowId: '1' }), name).toBe(true);
      expect(accepts({ movieId: '4', tvShowId: '1' }), name).toBe(false);
      expect(accepts({ movieId: '4', tvShowId: null }), name).toBe(false);
      expect(accepts({ movieId: null, tvShowId: null }), name).toBe(false);
      expect(accepts({}), name).toBe(false);
      expect(accepts(null), name).toBe(false);
      // The server's own listing means the same.
      const listedValidate = ajv.compile(listedNamed(name).inputSchema);
      expect(listedValidate(wrap({ movieId: '4', tvShowId: '1' })), name).toBe(false);
    }
  });

  it('a strict-shaped call (every key present, the unused ones null) succeeds, through the converter and sent as it is', async () => {
    const strictShaped = {
      filter: {
        genre: 'CRIME',
        minRating: null,
        maxRating: null,
        minYear: null,
        maxYear: null,
        titleContains: 'godfather',
      },
      page: null,
      size: null,
      sort: null,
    };
    const run = new RunContext();
    const output = (await convertedNamed('searchMovies').invoke(run, JSON.stringify(strictShaped))) as {
      text: string;
    };
    expect(output.text).toMatch(/^3 movies match, 1 pages; page 0 \(counting from 0\): The Godfather \(1972/);
    // Sent as it is, nulls and all (a client that does not strip them).
    const raw = await callTool<{ totalElements: number }>(client, 'searchMovies', strictShaped);
    expect(raw.isError).toBe(false);
    expect(raw.structuredContent.data.totalElements).toBe(3);

    const add = { subject: { movieId: '4' }, status: null, idempotencyKey: null };
    const added = (await convertedNamed('addToWatchlist').invoke(run, JSON.stringify(add))) as {
      text: string;
    };
    expect(added.text).toMatch(/^Added .+ to the watch list as entry id \d+ \(WANT_TO_WATCH\)\.$/);
    const again = await callTool(client, 'addToWatchlist', { ...add, subject: { movieId: '5' } });
    expect(again.isError).toBe(false);
    const list = await callTool(client, 'myWatchlist', { offset: null });
    expect(list.isError).toBe(false);
  });

  it('a null for a non-null field with a default (sort.order) means the default, for tools; /graphql still refuses it', async () => {
    type Page = { content: { id: string }[] };
    const args = (order: unknown) => ({
      filter: { genre: 'DRAMA' },
      size: 5,
      sort: { field: 'RATING', ...(order === undefined ? {} : { order }) },
    });
    const absent = await callTool<Page>(client, 'searchMovies', args(undefined));
    expect(absent.isError).toBe(false);
    const ascending = absent.structuredContent.data.content.map((movie) => movie.id);
    expect(ascending).toHaveLength(5);
    const descending = await callTool<Page>(client, 'searchMovies', args('DESC'));
    expect(descending.structuredContent.data.content.map((movie) => movie.id)).not.toEqual(ascending);

    // Sent as it is by a client, and as a strict model fills the key in through the converter.
    const sentNull = await callTool<Page>(client, 'searchMovies', args(null));
    expect(sentNull.isError, JSON.stringify(sentNull.structuredContent)).toBe(false);
    expect(sentNull.structuredContent.data.content.map((movie) => movie.id)).toEqual(ascending);
    const strictShaped = {
      filter: {
        genre: 'DRAMA',
        minRating: null,
        maxRating: null,
        minYear: null,
        maxYear: null,
        titleContains: null,
      },
      page: null,
      size: 5,
      sort: { field: 'RATING', order: null },
    };
    const output = (await convertedNamed('searchMovies').invoke(
      new RunContext(),
      JSON.stringify(strictShaped),
    )) as {
      text: string;
    };
    expect(output.text).toMatch(/^\d+ movies match/);

    // GraphQL's own rule is unchanged: a null for a non-null input field is a validation error there.
    const graphql = await server.graphql(
      'query ($sort: MovieSort) { movies(sort: $sort, size: 5) { content { id } } }',
      { sort: { field: 'RATING', order: null } },
    );
    expect(graphql.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/sort\.order.*null|null.*order/i) as unknown,
      extensions: { classification: 'BAD_REQUEST' },
    });
    expect(graphql.body.data ?? null).toBeNull();
  });
});
