/**
 * Response budgets (docs/mcp.md, Response budgets): with a small MCP_RESULT_MAX_CHARS, list answers are cut between
 * items with a `truncated` marker whose nextArguments fetch the rest; a page is cut to a smaller real page;
 * the JSON is never cut; the marker is declared in the outputSchema (the SDK client validates each
 * answer against it).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BUDGET = 1500;

interface Movie {
  id: string;
  title: string;
}
interface Page {
  content: Movie[];
  totalElements: number;
  totalPages: number;
  currentPage: number;
  size: number;
  hasNext: boolean;
  hasPrevious: boolean;
}
interface Truncated {
  returned: number;
  total: number;
  nextArguments: Record<string, unknown>;
}
type Answer<T> = Envelope<T> & { truncated?: Truncated };

describe('response budgets', () => {
  let server: TestServer;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { MCP_RESULT_MAX_CHARS: String(BUDGET) } });
    token = (await server.newUser()).token;
    client = await connectClient(server.url, token);
    // The client validates every structuredContent against the tool's outputSchema once it has the list.
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  const call = async <T>(name: string, args: Record<string, unknown>) => {
    const result = await callTool<T>(client, name, args);
    const answer = result.structuredContent as Answer<T>;
    // Never a cut JSON: a cut answer's text block is the whole structuredContent, which fits the budget
    // (an uncut full success of searchMovies has its short rendering instead: docs/authoring-tools.md, Text renderings).
    const text = (result.content as { text: string }[])[0]!.text;
    if (answer.truncated) expect(JSON.parse(text)).toEqual(answer);
    else expect(text.length).toBeLessThanOrEqual(BUDGET);
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(BUDGET);
    return answer;
  };
  const graphqlPage = async (page: number, size: number) => {
    const response = await server.graphql<{ movies: { content: Movie[] } }>(
      `{ movies(page: ${page}, size: ${size}) { content { id title } } }`,
    );
    return response.body.data!.movies.content.map((m) => m.id);
  };

  it('a page over the budget becomes a smaller real page, and nextArguments walk the rest of the result', async () => {
    const first = await call<Page>('searchMovies', { size: 50 });
    const { truncated } = first;
    expect(truncated).toBeDefined();
    const kept = truncated!.returned;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(50);
    expect(first.data).toMatchObject({
      size: kept,
      currentPage: 0,
      totalElements: 71,
      totalPages: Math.ceil(71 / kept),
      hasNext: true,
      hasPrevious: false,
    });
    expect(first.data.content).toHaveLength(kept);
    expect(truncated).toEqual({ returned: kept, total: 71, nextArguments: { size: kept, page: 1 } });
    // Exactly the page the same query returns for that page and size.
    expect(first.data.content.map((m) => m.id)).toEqual(await graphqlPage(0, kept));

    const seen = [...first.data.content.map((m) => m.id)];
    let next: Record<string, unknown> | undefined = truncated!.nextArguments;
    for (let guard = 0; next && guard < 100; guard += 1) {
      const answer: Answer<Page> = await call<Page>('searchMovies', next);
      seen.push(...answer.data.content.map((m) => m.id));
      next =
        answer.truncated?.nextArguments ??
        (answer.data.hasNext ? { ...next, page: answer.data.currentPage + 1 } : undefined);
    }
    expect(seen).toEqual(await graphqlPage(0, 100));
  });

  it('a later page is cut to a size that divides where it starts, so it is still a page of the query', async () => {
    const answer = await call<Page>('searchMovies', { page: 1, size: 30 });
    const kept = answer.truncated!.returned;
    expect(30 % kept).toBe(0);
    expect(answer.data.currentPage).toBe(30 / kept);
    expect(answer.data.hasPrevious).toBe(true);
    expect(answer.data.content.map((m) => m.id)).toEqual(await graphqlPage(30 / kept, kept));
    expect(answer.truncated!.nextArguments).toEqual({ page: 30 / kept + 1, size: kept });
  });

  it('a list over the budget keeps its first items; offset fetches the rest', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => String(i + 1));
    for (const movieId of ids) await callTool(client, 'addToWatchlist', { subject: { movieId } });
    const entries: string[] = [];
    let args: Record<string, unknown> | undefined = {};
    let answers = 0;
    while (args) {
      const answer: Answer<Array<{ content: { id: string } }>> = await call('myWatchlist', args);
      answers += 1;
      entries.push(...answer.data.map((entry) => entry.content.id));
      if (answer.truncated) expect(answer.truncated.total).toBe(25);
      args = answer.truncated?.nextArguments;
    }
    expect(answers).toBeGreaterThan(1);
    expect(entries).toEqual(ids);
    // An offset on its own skips that many.
    const skipped = await call<Array<{ content: { id: string } }>>('myWatchlist', { offset: 24 });
    expect(skipped.data.map((entry) => entry.content.id)).toEqual(['25']);
    expect(skipped.truncated).toBeUndefined();
  });

  it('an answer that is not a list is never cut, and its tool takes no offset', async () => {
    const movie = await callTool(client, 'getMovie', { id: '1' });
    expect(movie.structuredContent).not.toHaveProperty('truncated');
    const offset = await callTool(client, 'getMovie', { id: '1', offset: 1 });
    expect(offset.structuredContent.errors[0]).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: { field: 'offset' },
    });
  });

  it('a 2026-07-28 client gets the same marker', async () => {
    const modern = await connectModernClient(server.url);
    try {
      const result = (await modern.callTool({
        name: 'searchMovies',
        arguments: { size: 50 },
      })) as unknown as {
        structuredContent: Answer<Page>;
      };
      expect(result.structuredContent.truncated).toMatchObject({ total: 71, nextArguments: { page: 1 } });
    } finally {
      await modern.close();
    }
  });
});
