import { type HostileCase, MCP_HEADERS, mcpPost, nestedJson, toolCall } from './shared.js';

export function sessionCases(): HostileCase[] {
  const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
  const sessionIds = [
    '00000000-0000-0000-0000-000000000000',
    'not-a-uuid',
    ' ',
    's'.repeat(8000),
    '../../etc/passwd',
    '\u00e9\u00ff',
    'a,b',
    "' OR 1=1 --",
  ];
  const versions = [
    '',
    ' ',
    '2024-11-05',
    '2025-11-25 ',
    'garbage',
    'v'.repeat(5000),
    '2026-07-28',
    '1',
    '2025-13-45',
    "' OR 1=1",
  ];
  const cases: HostileCase[] = [];
  sessionIds.forEach((id, i) => {
    cases.push(
      {
        ...mcpPost('sessions and versions', `POST bad session id #${i}`, list, {
          headers: { 'mcp-session-id': id },
        }),
        session: undefined,
      },
      {
        kind: 'http',
        category: 'sessions and versions',
        name: `GET bad session id #${i}`,
        method: 'GET',
        path: '/mcp',
        headers: { accept: 'text/event-stream', 'mcp-session-id': id },
      },
      {
        kind: 'http',
        category: 'sessions and versions',
        name: `DELETE bad session id #${i}`,
        method: 'DELETE',
        path: '/mcp',
        headers: { 'mcp-session-id': id },
      },
    );
  });
  versions.forEach((version, i) => {
    cases.push(
      mcpPost(
        'sessions and versions',
        `version ${JSON.stringify(version.slice(0, 20))} #${i} in a session`,
        list,
        {
          headers: { 'mcp-protocol-version': version },
        },
      ),
      {
        ...mcpPost(
          'sessions and versions',
          `version #${i} on initialize`,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'h', version: '1' } },
          },
          { headers: { 'mcp-protocol-version': version } },
        ),
        session: undefined,
      },
    );
  });
  cases.push(
    { ...mcpPost('sessions and versions', 'tools/list without a session', list), session: undefined },
    {
      ...mcpPost('sessions and versions', 'tools/call without a session', toolCall('searchMovies', {})),
      session: undefined,
    },
    {
      kind: 'http',
      category: 'sessions and versions',
      name: 'GET /mcp without a session',
      method: 'GET',
      path: '/mcp',
      headers: { accept: 'text/event-stream' },
    },
    {
      kind: 'http',
      category: 'sessions and versions',
      name: 'GET /mcp accepting JSON only',
      method: 'GET',
      path: '/mcp',
      headers: { accept: 'application/json' },
    },
    {
      kind: 'http',
      category: 'sessions and versions',
      name: 'DELETE /mcp without a session',
      method: 'DELETE',
      path: '/mcp',
    },
    mcpPost('sessions and versions', "the user's session id without a token", list, {
      session: 'user-id-anonymous',
    }),
    mcpPost(
      'sessions and versions',
      "the user's session id with a tool call, no token",
      toolCall('myWatchlist', {}),
      {
        session: 'user-id-anonymous',
      },
    ),
  );
  for (const method of ['PUT', 'PATCH', 'OPTIONS', 'HEAD']) {
    cases.push({
      kind: 'http',
      category: 'sessions and versions',
      name: `${method} /mcp`,
      method,
      path: '/mcp',
      headers: MCP_HEADERS,
    });
  }
  cases.push(
    mcpPost('sessions and versions', 'foreign Origin', list, { headers: { origin: 'https://evil.example' } }),
    mcpPost('sessions and versions', 'malformed Origin', list, { headers: { origin: 'not a url' } }),
    mcpPost('sessions and versions', 'Origin null', list, { headers: { origin: 'null' } }),
  );
  return cases;
}

/**
 * JSON-RPC responses a client POSTs on a session, as its answer to a question of ours (elicitation/create
 * for a confirmation): answers to no question, to another session's, malformed ones, huge ids. Each is
 * accepted and dropped (202) or refused as an Invalid Request (400), never more.
 */
export function clientAnswerCases(): HostileCase[] {
  const ours = 'moviedb-elicit-00000000-0000-4000-8000-000000000000';
  const accept = { action: 'accept', content: { confirm: true } };
  const answers: Array<[string, unknown]> = [
    ['an answer to no question of ours', { jsonrpc: '2.0', id: ours, result: accept }],
    ['an answer shaped like ours, uppercase', { jsonrpc: '2.0', id: ours.toUpperCase(), result: accept }],
    ['an answer with a numeric id', { jsonrpc: '2.0', id: 0, result: accept }],
    ['an answer with a huge string id', { jsonrpc: '2.0', id: ours + 'x'.repeat(60_000), result: accept }],
    ['an answer with a huge numeric id', { jsonrpc: '2.0', id: 1e308, result: accept }],
    ['an answer with a negative id', { jsonrpc: '2.0', id: -1, result: accept }],
    ['an answer with an object id', { jsonrpc: '2.0', id: { id: ours }, result: accept }],
    ['an answer with an array id', { jsonrpc: '2.0', id: [ours], result: accept }],
    ['an answer with a null id', { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'x' } }],
    ['an answer without an id', { jsonrpc: '2.0', result: accept }],
    ['an answer with result and error', { jsonrpc: '2.0', id: ours, result: accept, error: { code: 1 } }],
    ['an answer whose result is a string', { jsonrpc: '2.0', id: ours, result: 'accept' }],
    ['an answer whose result is an array', { jsonrpc: '2.0', id: ours, result: [accept] }],
    ['an answer whose result is null', { jsonrpc: '2.0', id: ours, result: null }],
    ['an answer whose error is a string', { jsonrpc: '2.0', id: ours, error: 'no' }],
    [
      'an error answer with a huge message',
      { jsonrpc: '2.0', id: ours, error: { code: 1, message: 'm'.repeat(60_000) } },
    ],
    ['an answer without jsonrpc', { id: ours, result: accept }],
    ['an answer of JSON-RPC 1.0', { jsonrpc: '1.0', id: ours, result: accept }],
    ['an answer with an odd action', { jsonrpc: '2.0', id: ours, result: { action: 'yes', content: 'x' } }],
    [
      'an answer with a deep content',
      { jsonrpc: '2.0', id: ours, result: { action: 'accept', content: JSON.parse(nestedJson(40)) } },
    ],
    [
      'an answer with a __proto__ result',
      JSON.parse(`{"jsonrpc":"2.0","id":"${ours}","result":{"__proto__":{"action":"accept"}}}`),
    ],
  ];
  const cases: HostileCase[] = [];
  for (const [name, message] of answers) {
    cases.push(
      mcpPost('client answers', `${name} (anonymous session)`, message),
      mcpPost('client answers', `${name} (user session)`, message, { session: 'user' }),
    );
  }
  cases.push(
    mcpPost('client answers', "an answer on the user's session without its token", answers[0]![1], {
      session: 'user-id-anonymous',
    }),
    {
      ...mcpPost('client answers', 'an answer on no session', answers[0]![1]),
      session: undefined,
    },
    {
      ...mcpPost('client answers', 'an answer on an unknown session', answers[0]![1], {
        headers: { 'mcp-session-id': '00000000-0000-0000-0000-000000000000' },
      }),
      session: undefined,
    },
  );
  return cases;
}
