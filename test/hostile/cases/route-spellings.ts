import { type HostileCase, JSON_HEADERS, MCP_HEADERS } from './shared.js';

/**
 * Other spellings of the routes (paths are exact: each is a 404, never served, held or refused as the
 * route it resembles), a movie resource id past the largest stored one, and floods of cheap requests
 * and refused documents (counted by the request limit; the corpus runs with limits off, so here they
 * only have to be answered cleanly).
 */
export function routeSpellingCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const add = (name: string, method: string, path: string, headers?: Record<string, string>, body?: string) =>
    cases.push({ kind: 'http', category: 'route spellings', name, method, path, headers, body });
  const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const spellings = [
    '/MCP',
    '/Mcp',
    '/mcp/',
    '/MCP/',
    '//mcp',
    '/mcp//',
    '/mcp/.',
    '/%6Dcp',
    '/mcp%2F',
    '/mcp;x',
  ];
  for (const path of spellings) {
    add(`POST ${path}`, 'POST', path, MCP_HEADERS, toolsList);
    add(`GET ${path} as a listening stream`, 'GET', path, { accept: 'text/event-stream' });
    add(`DELETE ${path}`, 'DELETE', path, { 'mcp-session-id': 'x' });
  }
  for (const path of [
    '/GRAPHQL',
    '/graphql/',
    '/Graphql?query=%7B__typename%7D',
    '/HEALTHZ',
    '/readyz/',
    '/Metrics',
  ])
    add(`GET ${path}`, 'GET', path, { accept: 'application/json' });
  add(
    'POST /graphql/ with a query',
    'POST',
    '/graphql/',
    JSON_HEADERS,
    JSON.stringify({ query: '{ __typename }' }),
  );
  add('GraphiQL asset with a slash', 'GET', '/graphiql/a/b');
  add('GraphiQL asset prefix alone', 'GET', '/graphiql/');
  const read = (uri: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } });
  for (const uri of [
    'moviedb://movies/9999999999',
    'moviedb://movies/2147483647',
    'moviedb://movies/4294967296',
  ])
    cases.push({
      kind: 'http',
      category: 'route spellings',
      name: `resources/read ${uri}`,
      method: 'POST',
      path: '/mcp',
      headers: MCP_HEADERS,
      body: read(uri),
      session: 'anonymous',
      echoes: [uri],
    });
  for (const query of ['{ nope }', '{ movie(', `{ ${'a: nope '.repeat(2000)}}`, '#'.repeat(60_000)])
    add(
      `refused document ${JSON.stringify(query.slice(0, 20))}`,
      'POST',
      '/graphql',
      JSON_HEADERS,
      JSON.stringify({ query }),
    );
  return cases;
}
