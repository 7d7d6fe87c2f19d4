import { gzipSync } from 'node:zlib';
import { type CorpusTokens, type HostileCase, mcpPost, nextRpcId, repeat } from './shared.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * The 2026-07-28 revision (no session; the envelope in every request): the MCP App resource read with odd
 * URIs, and the schema tools with huge, deep and alias-heavy documents, signed in and anonymously.
 */
export function modernRevisionCases(tokens: CorpusTokens): HostileCase[] {
  const cases: HostileCase[] = [];
  const send = (
    category: string,
    label: string,
    method: string,
    params: Record<string, unknown>,
    mcpName: string | undefined,
    token?: string,
  ) =>
    cases.push(
      mcpPost(
        category,
        `2026 ${label}${token ? ' (user)' : ''}`,
        { jsonrpc: '2.0', id: nextRpcId(), method, params: { ...params, _meta: META } },
        {
          session: 'none',
          headers: {
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            ...(mcpName === undefined ? {} : { 'mcp-name': mcpName }),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          echoes: mcpName === undefined ? [] : [mcpName],
        },
      ),
    );

  const uris = [
    'ui://moviedb/card?x=1',
    'ui://moviedb/card#f',
    'UI://MOVIEDB/CARD',
    'ui://moviedb/card/../card',
    'ui://moviedb/%63ard',
    'ui://moviedb//card',
    'ui://',
    'file:///etc/passwd',
    'javascript:alert(1)',
    `ui://moviedb/card?${'x'.repeat(6000)}`,
  ];
  for (const uri of uris)
    send('2026 resources', `resources/read ${uri.slice(0, 40)}`, 'resources/read', { uri }, uri);
  for (const uri of [123, null, {}, ['ui://moviedb/card']])
    send('2026 resources', `resources/read uri ${JSON.stringify(uri)}`, 'resources/read', { uri }, undefined);
  // Over the header limit: the refusal comes from the HTTP parser, before any route.
  send(
    '2026 resources',
    'resources/read 60 KB uri',
    'resources/read',
    { uri: `ui://moviedb/${'a'.repeat(60000)}` },
    `ui://moviedb/${'a'.repeat(60000)}`,
  );

  const tool = (label: string, name: string, args: unknown) => {
    send('2026 schema tools', `${name} ${label}`, 'tools/call', { name, arguments: args }, name);
    send('2026 schema tools', `${name} ${label}`, 'tools/call', { name, arguments: args }, name, tokens.user);
  };
  const aliases = repeat(3000, (i) => `a${i}: __typename`);
  const introspection = repeat(14, (i) => `s${i}: __schema { types { name fields { name args { name } } } }`);
  tool('3000 aliases', 'executeGraphQL', { query: `{ ${aliases} }` });
  tool('3000 aliases', 'validateGraphQL', { query: `{ ${aliases} }` });
  tool('14 aliased introspections', 'executeGraphQL', { query: `{ ${introspection} }` });
  tool('3000 levels deep', 'validateGraphQL', { query: `${'{ a '.repeat(3000)}${'}'.repeat(3000)}` });
  tool('2000 operations', 'executeGraphQL', {
    query: repeat(2000, (i) => `query q${i} { __typename }`, '\n'),
  });
  tool('3000 directives', 'executeGraphQL', { query: `{ __typename ${'@include(if: true) '.repeat(3000)}}` });
  tool('fragment cycle', 'executeGraphQL', {
    query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
  });
  tool('operation name 50 KB', 'executeGraphQL', {
    query: '{ __typename }',
    operationName: 'x'.repeat(50000),
  });
  tool('variables an array', 'executeGraphQL', { query: '{ __typename }', variables: [1, 2] });
  tool('query 90 KB', 'searchSchema', { query: 'a'.repeat(90000) });
  tool('regex characters', 'searchSchema', { query: '(.*)*$^[' });

  // A compressed body, whole and as a bomb, on the revision that has no session to attach it to.
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: META } });
  for (const [label, body] of [
    ['gzip ping', gzipSync(ping)],
    ['gzip bomb (20 MB of spaces)', gzipSync(Buffer.alloc(20 * 1024 * 1024, 32))],
  ] as const) {
    cases.push({
      kind: 'http',
      category: '2026 resources',
      name: `2026 ${label}`,
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-encoding': 'gzip',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'ping',
      },
      body,
    });
  }
  return cases;
}
