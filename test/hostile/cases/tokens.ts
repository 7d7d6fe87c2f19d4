import { type CorpusTokens, graphqlGet, graphqlPost, type HostileCase, mcpPost, toolCall } from './shared.js';

export function tokenCases(tokens: CorpusTokens): HostileCase[] {
  const headers: Array<[string, string]> = [
    ['scheme only', 'Bearer'],
    ['scheme and space', 'Bearer '],
    ['basic', 'Basic dXNlcjpwYXNz'],
    ['three dots', 'Bearer a.b.c'],
    ['garbage', 'Bearer !!!'],
    ['alg none', `Bearer ${tokens.algNone}`],
    ['numeric sub', `Bearer ${tokens.numericSub}`],
    ['object sub', `Bearer ${tokens.objectSub}`],
    ['empty sub', `Bearer ${tokens.emptySub}`],
    ['unknown sub', `Bearer ${tokens.unknownSub}`],
    ['no role', `Bearer ${tokens.noRole}`],
    ['odd role', `Bearer ${tokens.oddRole}`],
    ['expired', `Bearer ${tokens.expired}`],
    ['other audience', `Bearer ${tokens.otherAudience}`],
    ['other secret', `Bearer ${tokens.otherSecret}`],
    ['huge', `Bearer ${'x'.repeat(8000)}`],
    ['lower-case scheme', `bearer ${tokens.user}`],
    ['two spaces', `Bearer  ${tokens.user}`],
    ['trailing junk', `Bearer ${tokens.user} junk`],
    ['two tokens', `Bearer ${tokens.user}, Bearer ${tokens.user}`],
  ];
  const cases: HostileCase[] = [];
  for (const [name, authorization] of headers) {
    const auth = { authorization };
    cases.push(
      graphqlPost('tokens', `/graphql me, ${name}`, '{ me { id username } }', undefined, { headers: auth }),
      graphqlPost(
        'tokens',
        `/graphql addToWatchlist, ${name}`,
        'mutation { addToWatchlist(subject: { movieId: "7" }) { id } }',
        undefined,
        { headers: auth },
      ),
      graphqlPost('tokens', `/graphql watchlist, ${name}`, '{ watchlist { id } }', undefined, {
        headers: auth,
      }),
      graphqlGet('tokens', `GET /graphql me, ${name}`, `query=${encodeURIComponent('{ me { id } }')}`, auth),
      mcpPost(
        'tokens',
        `/mcp initialize, ${name}`,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'h', version: '1' },
          },
        },
        { session: 'none', headers: auth },
      ),
      mcpPost('tokens', `/mcp myWatchlist in a session, ${name}`, toolCall('myWatchlist', {}), {
        headers: auth,
      }),
      // tools/list is computed per caller (its role and scopes): a 2026-07-28 request has no session to
      // lean on, so the token alone decides the list.
      mcpPost(
        'tokens',
        `/mcp 2026 tools/list, ${name}`,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'h', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
        {
          session: 'none',
          headers: { ...auth, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        },
      ),
    );
  }
  return cases;
}
