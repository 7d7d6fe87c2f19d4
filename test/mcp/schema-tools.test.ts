/**
 * The schema tools (docs/mcp.md, Schema tools) through the front door: real servers on port 0, real
 * MCP clients of both revisions, real signed tokens. They are listed only to callers who may call
 * them; searchSchema stays within its budget and shows only what the caller may use; executeGraphQL
 * answers exactly as /graphql does, refuses what /graphql refuses, runs mutations only in write mode
 * and with the fields' scopes, and fits its answer to the response budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/identity.js';
import { sizeOf } from '../../src/operations/tool-size.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { connectModernClient, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import {
  fragmentBomb,
  listedSchemaTools,
  narrowed,
  SCHEMA_TOOLS,
  type Bounds,
} from '../helpers/schema-tool-probes.js';

const ADD = 'mutation { addToWatchlist(subject: { movieId: "7" }) { id } }';

describe.each(dialects)('schema tools on %s', (dialect) => {
  let off: TestServer;
  let read: TestServer;
  let write: TestServer;
  let readToken: string;
  let writeToken: string;

  beforeAll(async () => {
    [off, read, write] = await Promise.all([
      startTestServer(dialect),
      startTestServer(dialect, { env: { MCP_SCHEMA_TOOLS: 'read', MCP_RESULT_MAX_CHARS: '3000' } }),
      startTestServer(dialect, { env: { MCP_SCHEMA_TOOLS: 'write' } }),
    ]);
    readToken = await read.login('user', 'user123');
    writeToken = await write.login('user', 'user123');
  });
  afterAll(() => Promise.all([off?.stop(), read?.stop(), write?.stop()]));

  it('with MCP_SCHEMA_TOOLS=read a caller with graphql:execute sees the three tools, in both revisions', async () => {
    expect(await listedSchemaTools(read.url, readToken)).toEqual({
      legacy: SCHEMA_TOOLS,
      modern: SCHEMA_TOOLS,
    });
  });

  it('an anonymous caller, a token without graphql:execute, and any caller of a server with them off see none', async () => {
    const none = { legacy: [], modern: [] };
    expect(await listedSchemaTools(read.url)).toEqual(none);
    const withoutScope = ALL_SCOPES.filter((scope) => scope !== 'graphql:execute');
    expect(await listedSchemaTools(read.url, await narrowed(read, readToken, withoutScope))).toEqual(none);
    expect(await listedSchemaTools(off.url, await off.login('user', 'user123'))).toEqual(none);
  });

  it('each has an output schema and annotations saying what it does', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      const tools = (await client.listTools()).tools.filter((tool) => SCHEMA_TOOLS.includes(tool.name));
      for (const tool of tools) {
        expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['data', 'errors'] });
        expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      }
    } finally {
      await client.close();
    }
  });

  it('calling one anonymously is an UNAUTHORIZED tool error; without the scope, the 403 insufficient_scope challenge', async () => {
    const client = await connectClient(read.url);
    try {
      const anonymous = await callTool(client, 'executeGraphQL', { query: '{ movie(id: "1") { title } }' });
      expect(anonymous.isError).toBe(true);
      expect(anonymous.structuredContent.errors[0]).toMatchObject({
        classification: 'UNAUTHORIZED',
        message: 'Sign in to use executeGraphQL',
      });
    } finally {
      await client.close();
    }
    const token = await narrowed(read, readToken, ['movies:read']);
    const request = modernRequest(3, 'tools/call', { name: 'searchSchema', arguments: { query: 'movie' } });
    const response = await raw(`${read.url}/mcp`, {
      method: 'POST',
      headers: { ...request.headers, authorization: `Bearer ${token}` },
      body: request.body,
    });
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toMatch(
      /error="insufficient_scope", scope="movies:read graphql:execute"/,
    );
  });

  it('searchSchema "director" answers the directors field and Person in under 2,000 tokens', async () => {
    const client = await connectModernClient(read.url, { authorization: `Bearer ${readToken}` });
    try {
      const result = await client.callTool({ name: 'searchSchema', arguments: { query: 'director' } });
      const structured = result.structuredContent as {
        data: { sdl: string; matches: string[]; tokens: number };
      };
      expect(result.isError).toBe(false);
      expect(structured.data.matches).toContain('Movie.directors');
      expect(structured.data.sdl).toContain('directors:[Person!]!');
      expect(structured.data.sdl).toMatch(/type Person\{/);
      expect(structured.data.tokens).toBe(sizeOf(structured).tokens);
      expect(structured.data.tokens).toBeLessThan(2000);
      console.log(`searchSchema "director": ${structured.data.tokens} tokens`);
    } finally {
      await client.close();
    }
  });

  it('searchSchema never answers the whole schema, and shows only the fields the caller may use', async () => {
    const client = await connectClient(write.url, writeToken);
    const admin = await connectClient(write.url, await write.login('admin', 'admin123'));
    const readClient = await connectClient(read.url, readToken);
    try {
      const everything = await callTool<{ tokens: number; omitted: number }>(client, 'searchSchema', {
        query: 'the a of id movie person show review watch list user genre page',
      });
      expect(everything.structuredContent.data.tokens).toBeLessThan(2000);
      expect(everything.structuredContent.data.omitted).toBeGreaterThan(0);
      // createMovie needs the ADMIN role: a user is not shown it, an administrator is.
      const asUser = await callTool<{ sdl: string }>(client, 'searchSchema', { query: 'createMovie' });
      expect(asUser.structuredContent.data.sdl).not.toContain('createMovie');
      const asAdmin = await callTool<{ sdl: string }>(admin, 'searchSchema', { query: 'createMovie' });
      expect(asAdmin.structuredContent.data.sdl).toContain('createMovie(');
      // In read mode no mutation is the caller's to use.
      const readOnly = await callTool<{ sdl: string }>(readClient, 'searchSchema', { query: 'watchlist' });
      expect(readOnly.structuredContent.data.sdl).toContain('watchlist:');
      expect(readOnly.structuredContent.data.sdl).not.toContain('addToWatchlist(');
    } finally {
      await Promise.all([client.close(), admin.close(), readClient.close()]);
    }
  });

  it('executeGraphQL answers GraphQL data as the caller, classified as a curated tool is', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      const result = await callTool(client, 'executeGraphQL', {
        query: 'query ($id: ID!) { movie(id: $id) { title directors { name } } }',
        variables: { id: '1' },
      });
      expect(result.isError).toBe(false);
      const viaHttp = await read.graphql(
        'query ($id: ID!) { movie(id: $id) { title directors { name } } }',
        { id: '1' },
        readToken,
      );
      expect(result.structuredContent).toEqual({ data: viaHttp.body.data, errors: [] });
      const unknown = await callTool(client, 'executeGraphQL', { query: '{ movie(id: "1") { nope } }' });
      expect(unknown.isError).toBe(true);
      expect(unknown.structuredContent.errors[0]).toMatchObject({
        classification: 'BAD_REQUEST',
        retryable: false,
      });
      expect(unknown.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^BAD_REQUEST/) });
    } finally {
      await client.close();
    }
  });

  it('a field behind @selfOrAdmin of another user is refused exactly as through /graphql', async () => {
    const query = '{ movie(id: "1") { reviews { user { username email } } } }';
    const viaHttp = await read.graphql(query, undefined, readToken);
    expect(viaHttp.body.errors?.[0]?.extensions).toMatchObject({ classification: 'FORBIDDEN' });
    const client = await connectClient(read.url, readToken);
    try {
      const result = await callTool(client, 'executeGraphQL', { query });
      expect(result.isError).toBe(true);
      expect(result.structuredContent.data).toEqual(viaHttp.body.data);
      expect(result.structuredContent.errors.map((e) => [e.message, e.path, e.classification])).toEqual(
        viaHttp.body.errors!.map((e) => [e.message, e.path, e.extensions!.classification]),
      );
    } finally {
      await client.close();
    }
  });

  it('a 24-level fragment bomb is a classified BAD_REQUEST in well under a second', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      const started = performance.now();
      const result = await callTool(client, 'executeGraphQL', { query: fragmentBomb(24) });
      const ms = performance.now() - started;
      expect(result.structuredContent.errors[0]).toMatchObject({
        classification: 'BAD_REQUEST',
        extensions: { limit: 'cost' },
      });
      expect(ms).toBeLessThan(250);
      console.log(`24-level fragment bomb refused in ${ms.toFixed(1)} ms`);
    } finally {
      await client.close();
    }
  });

  it('a mutation is refused in read mode and writes nothing', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      const before = await read.count('watchlist_items');
      const result = await callTool(client, 'executeGraphQL', { query: ADD });
      expect(result.structuredContent.errors[0]).toMatchObject({ classification: 'FORBIDDEN' });
      expect(await read.count('watchlist_items')).toBe(before);
      const checked = await callTool<{ valid: boolean; problems: { classification: string }[] }>(
        client,
        'validateGraphQL',
        { query: ADD },
      );
      expect(checked.structuredContent.data.valid).toBe(false);
      expect(checked.structuredContent.data.problems).toContainEqual(
        expect.objectContaining({ classification: 'FORBIDDEN' }),
      );
    } finally {
      await client.close();
    }
  });

  it('in write mode a mutation runs with the scopes its fields need, and is refused without them', async () => {
    const withoutWrite = await narrowed(write, writeToken, [
      'movies:read',
      'watchlist:read',
      'graphql:execute',
    ]);
    const narrow = await connectClient(write.url, withoutWrite);
    const client = await connectClient(write.url, writeToken);
    try {
      const before = await write.count('watchlist_items');
      const refused = await callTool(narrow, 'executeGraphQL', { query: ADD });
      expect(refused.structuredContent.errors[0]).toMatchObject({
        classification: 'FORBIDDEN',
        extensions: { requiredScopes: ['watchlist:write'] },
      });
      expect(await write.count('watchlist_items')).toBe(before);
      const added = await callTool(client, 'executeGraphQL', { query: ADD });
      expect(added.isError).toBe(false);
      expect(added.structuredContent.data).toMatchObject({ addToWatchlist: { id: expect.any(String) } });
      expect(await write.count('watchlist_items')).toBe(before + 1);
    } finally {
      await Promise.all([narrow.close(), client.close()]);
    }
  });

  it('tools/list shows the bounds tools/call enforces: each listed string and integer argument is bounded, accepted at its bound and refused just past it', async () => {
    const client = await connectClient(write.url, writeToken);
    try {
      const tools = (await client.listTools()).tools.filter((tool) => SCHEMA_TOOLS.includes(tool.name));
      expect(tools.map((tool) => tool.name).sort()).toEqual(SCHEMA_TOOLS);
      for (const tool of tools) {
        const schema = tool.inputSchema as {
          properties: Record<string, Bounds>;
          additionalProperties?: boolean;
        };
        expect(schema.additionalProperties, tool.name).toBe(false);
        const base = { query: tool.name === 'searchSchema' ? 'director' : '{ __typename }' };
        /** The argument the call was refused for, if its arguments were refused. */
        const refusedFor = async (name: string, value: unknown) => {
          const result = await callTool(client, tool.name, { ...base, [name]: value });
          const error = result.structuredContent.errors[0];
          return error?.message.startsWith(`Invalid arguments for ${tool.name}:`)
            ? error.extensions?.field
            : undefined;
        };
        for (const [name, bounds] of Object.entries(schema.properties)) {
          const where = `${tool.name}.${name}`;
          // A string of that length: a document or keywords padded with blanks mean the same.
          const ofLength = (length: number) =>
            name === 'query' ? base.query.slice(0, length).padEnd(length, ' ') : 'a'.repeat(length);
          if (bounds.type === 'string') {
            expect(bounds.maxLength ?? bounds.pattern, `${where} has an upper bound`).toBeDefined();
            if (bounds.maxLength !== undefined) {
              expect(await refusedFor(name, ofLength(bounds.maxLength)), where).toBeUndefined();
              expect(await refusedFor(name, ofLength(bounds.maxLength + 1)), where).toBe(name);
            }
            if (bounds.minLength !== undefined) {
              expect(await refusedFor(name, ofLength(bounds.minLength)), where).toBeUndefined();
              expect(await refusedFor(name, ofLength(bounds.minLength - 1)), where).toBe(name);
            }
            if (bounds.pattern !== undefined) {
              const pattern = new RegExp(bounds.pattern);
              expect([pattern.test('key-1'), pattern.test('no key!')], where).toEqual([true, false]);
              expect(await refusedFor(name, 'key-1'), where).toBeUndefined();
              expect(await refusedFor(name, 'no key!'), where).toBe(name);
            }
          }
          if (bounds.type === 'integer') {
            expect([bounds.minimum, bounds.maximum], `${where} is bounded`).toEqual([
              expect.any(Number),
              expect.any(Number),
            ]);
            for (const [at, past] of [
              [bounds.minimum!, bounds.minimum! - 1],
              [bounds.maximum!, bounds.maximum! + 1],
            ]) {
              expect(await refusedFor(name, at), where).toBeUndefined();
              expect(await refusedFor(name, past), where).toBe(name);
            }
          }
        }
      }
    } finally {
      await client.close();
    }
  });

  it('validateGraphQL reports problems with locations and the measured depth and cost against the limits', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      type Checked = {
        valid: boolean;
        problems: { message: string; locations?: unknown[]; limit?: string }[];
        operations: { depth: number; cost: number }[];
        limits: { maxDepth: number; maxCost: number };
      };
      const ok = await callTool<Checked>(client, 'validateGraphQL', {
        query: '{ movie(id: "1") { title directors { name } } }',
      });
      expect(ok.structuredContent.data).toMatchObject({
        valid: true,
        problems: [],
        operations: [{ depth: 3 }],
      });
      expect(ok.structuredContent.data.limits.maxDepth).toBeGreaterThan(3);
      const broken = await callTool<Checked>(client, 'validateGraphQL', {
        query: '{ movie(id: "1") {\n  nope } }',
      });
      expect(broken.structuredContent.data.problems[0]).toMatchObject({
        locations: [{ line: 2, column: 3 }],
      });
      const bomb = await callTool<Checked>(client, 'validateGraphQL', { query: fragmentBomb(24) });
      expect(bomb.structuredContent.data.problems[0]).toMatchObject({ limit: 'cost' });
      expect(bomb.structuredContent.data.operations[0]!.cost).toBeGreaterThan(
        bomb.structuredContent.data.limits.maxCost,
      );
      const variables = await callTool<Checked>(client, 'validateGraphQL', {
        query: 'query ($id: ID!) { movie(id: $id) { title } }',
        variables: { id: { no: 1 } },
      });
      expect(variables.structuredContent.data.valid).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('an answer over the budget is cut with the arguments for the rest, or refused with a way to ask for less', async () => {
    const client = await connectClient(read.url, readToken);
    try {
      const page =
        'query ($p: Int, $s: Int) { movies(page: $p, size: $s) { content { id title releaseYear genre rating } totalElements currentPage size hasNext } }';
      const cut = await callTool(client, 'executeGraphQL', { query: page, variables: { p: 0, s: 100 } });
      const structured = cut.structuredContent as unknown as {
        data: { movies: { content: unknown[]; size: number } };
        truncated: { nextArguments: { query: string; variables: { p: number; s: number } } };
      };
      expect(JSON.stringify(structured).length).toBeLessThanOrEqual(3000);
      expect(structured.truncated.nextArguments).toMatchObject({
        query: page,
        variables: { p: 1, s: structured.data.movies.size },
      });
      const next = await callTool(client, 'executeGraphQL', structured.truncated.nextArguments);
      expect(next.isError).toBe(false);
      const schema = await callTool(client, 'executeGraphQL', {
        query: '{ __schema { types { name description fields { name description } } } }',
      });
      expect(schema.structuredContent.errors[0]).toMatchObject({
        classification: 'BAD_REQUEST',
        extensions: { limit: 'resultBudget' },
        message: expect.stringContaining('searchSchema'),
      });
    } finally {
      await client.close();
    }
  });
});
