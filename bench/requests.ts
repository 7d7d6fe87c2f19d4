/**
 * The requests the benchmark sends: signing in and the watch list over /graphql, MCP initialize and
 * tools/call, and a mix of reads and writes over /graphql.
 */
import type autocannon from 'autocannon';

async function graphql<T>(port: number, query: string, bearer?: string): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({ query }),
  });
  return ((await response.json()) as { data: T }).data;
}

export const token = async (port: number) =>
  (
    await graphql<{ login: { token: string } }>(
      port,
      'mutation { login(input: { username: "user", password: "user123" }) { token } }',
    )
  ).login.token;

/**
 * The ids of `count` entries on the bench user's watch list, adding catalogue movies until it holds that
 * many: the write cases toggle their statuses, one entry for all or a different entry per request.
 */
export async function watchlistItems(port: number, bearer: string, count: number): Promise<string[]> {
  const listed = async () =>
    (await graphql<{ watchlist: { id: string }[] }>(port, '{ watchlist { id } }', bearer)).watchlist.map(
      (item) => item.id,
    );
  const items = await listed();
  if (items.length >= count) return items.slice(0, count);
  const { movies } = await graphql<{ movies: { content: { id: string }[] } }>(
    port,
    `{ movies(size: ${Math.min(count, 100)}) { content { id } } }`,
    bearer,
  );
  // A movie already on the list is refused (one entry per title) and simply not counted.
  for (const movie of movies.content) {
    await graphql(port, `mutation { addToWatchlist(subject: { movieId: "${movie.id}" }) { id } }`, bearer);
  }
  const all = await listed();
  if (all.length < count)
    throw new Error(`the bench user's watch list holds ${all.length} of ${count} entries`);
  return all.slice(0, count);
}

const MCP_ACCEPT = 'application/json, text/event-stream';
export const initialize = (port: number, bearer: string) =>
  fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, authorization: `Bearer ${bearer}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });

/** The per-request envelope a 2026-07-28 client sends instead of a session. */
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
let nextId = 0;

/**
 * tools/call requests, each with a JSON-RPC id of its own (ids repeated on one session would be
 * requests the server cannot tell apart); `args` may vary per request. autocannon's idReplacement
 * keeps the first Content-Length, so the body is built per request here instead.
 */
export function toolCalls(
  port: number,
  headers: Record<string, string>,
  era: '2025' | '2026',
  name: string,
  args: (n: number) => Record<string, unknown>,
): autocannon.Options {
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      ...headers,
      ...(era === '2026'
        ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name }
        : { 'mcp-protocol-version': '2025-11-25' }),
    },
    requests: [
      {
        setupRequest: (request) => {
          const id = ++nextId;
          const params = { name, arguments: args(id), ...(era === '2026' ? { _meta: ENVELOPE_2026 } : {}) };
          return { ...request, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) };
        },
      },
    ],
  };
}

export const isToolResult = (body: string) => body.includes('"isError":false');

/**
 * /graphql POSTs in a fixed mix, per connection: `reads` copies of one read, then one write whose body
 * may vary per request (a population of readers and writers on one replica).
 */
export function graphqlMix(
  port: number,
  headers: Record<string, string>,
  read: string,
  reads: number,
  write: (n: number) => string,
): autocannon.Options {
  let writes = 0;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    requests: [
      ...Array.from({ length: reads }, () => ({ body: read })),
      { setupRequest: (request) => ({ ...request, body: write(++writes) }) },
    ],
  };
}
