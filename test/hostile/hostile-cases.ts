/**
 * The hostile corpus: requests a hostile client would send to /graphql, /mcp and the HTTP server itself,
 * generated from families of bad values crossed with the places they can reach. Each case says only what
 * to send; the test asserts the same invariants for every answer (no 5xx, no HTML, no leak, no -32603,
 * no INTERNAL_ERROR, under a second).
 */

import { gzipSync } from 'node:zlib';

/**
 * Which MCP session a request rides on: the anonymous one, the signed-in user's (with the user's token),
 * or the user's session id sent without any token.
 */
export type SessionRef = 'anonymous' | 'user' | 'user-id-anonymous';

/** A request sent with fetch. `session` attaches an MCP session opened beforehand (and its token). */
export interface HttpCase {
  kind: 'http';
  category: string;
  name: string;
  method: string;
  /** Path and query string. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  session?: SessionRef;
  /** Text the case sends that an answer may legitimately quote back (a rejected id, a search string). */
  echoes?: string[];
}

/** Bytes written to a plain TCP socket: HTTP that fetch would refuse to send. */
export interface RawCase {
  kind: 'raw';
  category: string;
  name: string;
  bytes: string | Uint8Array;
}

export type HostileCase = HttpCase | RawCase;

export interface CorpusTokens {
  /** A seed user's real token. */
  user: string;
  /** Validly signed with the server's secret, but `sub` is a number. */
  numericSub: string;
  /** Validly signed, `sub` an object. */
  objectSub: string;
  /** Validly signed, `sub` an empty string. */
  emptySub: string;
  /** Validly signed, `sub` names no user. */
  unknownSub: string;
  /** Validly signed, no role claim. */
  noRole: string;
  /** Validly signed, role not one we know. */
  oddRole: string;
  /** Signed, but expired an hour ago. */
  expired: string;
  /** Signed for another audience. */
  otherAudience: string;
  /** Signed with another secret. */
  otherSecret: string;
  /** `alg: none`, no signature. */
  algNone: string;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** Text that SQL, LIKE, the GraphQL lexer, the JSON parser or a store may treat specially. */
export const HOSTILE_STRINGS: readonly string[] = [
  '%',
  '_',
  '\\',
  "'",
  '"',
  '%%',
  '_%_',
  '\\%',
  '\\\\_',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "admin'--",
  "%' OR 1=1 --",
  '1; SELECT pg_sleep(5)',
  "' UNION SELECT email, password_hash FROM users --",
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '\u202eevil\u202c',
  'zero\u200bwidth\u200d',
  '\ufeffbom',
  '\uffff\ufffe',
  'e\u0301\u0301\u0301\u0301',
  '😀🎬',
  'ｆｕｌｌｗｉｄｔｈ',
  '\u0085next\u2028line\u2029',
  '\r\n\t\u000b\u001f',
  '\u00c0\u00af',
  '${jndi:ldap://example.invalid/a}',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '../../../../etc/passwd',
  'a'.repeat(101),
  'b'.repeat(5000),
  ' ',
  '',
  'Godfather',
];

/** Values that are not a page number or size. */
const BAD_NUMBERS: readonly unknown[] = [
  null,
  -1,
  -2147483648,
  0,
  101,
  2147483647,
  2147483648,
  1e10,
  1.5,
  -0.5,
  '10',
  'ten',
  [],
  [10],
  {},
  true,
  2 ** 53 + 2,
];

/** A GraphQL literal for a JSON value (JSON strings are valid GraphQL strings; objects need bare keys). */
function literal(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    return `{ ${Object.entries(value as object)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

function graphqlPost(
  category: string,
  name: string,
  query: string,
  variables?: unknown,
  options: { headers?: Record<string, string>; echoes?: string[] } = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'POST',
    path: '/graphql',
    headers: { ...JSON_HEADERS, ...options.headers },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
    echoes: options.echoes,
  };
}

function graphqlGet(
  category: string,
  name: string,
  params: string,
  headers: Record<string, string> = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'GET',
    path: `/graphql?${params}`,
    headers: { accept: 'application/graphql-response+json', ...headers },
  };
}

let rpcId = 1000;
function mcpPost(
  category: string,
  name: string,
  message: unknown,
  options: {
    /** Default: the anonymous session; 'none' sends no session id. */
    session?: SessionRef | 'none';
    headers?: Record<string, string>;
    raw?: boolean;
    echoes?: string[];
  } = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'POST',
    path: '/mcp',
    headers: { ...MCP_HEADERS, ...options.headers },
    body: options.raw ? (message as string) : JSON.stringify(message),
    session: options.session === 'none' ? undefined : (options.session ?? 'anonymous'),
    echoes: options.echoes,
  };
}

function toolCall(name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } };
}

/** `depth` levels of `{"a": …}` (or `[…]`) around a leaf, built as text so no stack is needed here. */
function nestedJson(depth: number, kind: 'object' | 'array' = 'object', leaf = '1'): string {
  return kind === 'object'
    ? '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)
    : '['.repeat(depth) + leaf + ']'.repeat(depth);
}

function doublingChain(levels: number, type: string, leaf: string): string {
  const fragments = [`fragment F0 on ${type} { ${leaf} }`];
  for (let i = 1; i <= levels; i++) fragments.push(`fragment F${i} on ${type} { ...F${i - 1} ...F${i - 1} }`);
  return fragments.join('\n');
}

const repeat = (count: number, make: (i: number) => string, separator = ' ') =>
  Array.from({ length: count }, (_, i) => make(i)).join(separator);

/** Hostile strings where the stores and the search see them: arguments, input fields, tool arguments. */
function stringCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  HOSTILE_STRINGS.forEach((text, i) => {
    const tag = `string #${i}`;
    const echoes = [text];
    const sinks: Array<[string, string, Record<string, unknown>]> = [
      [
        'search',
        'query ($q: String!) { search(query: $q) { __typename ... on Movie { id title } } }',
        { q: text },
      ],
      [
        'titleContains',
        'query ($q: String) { movies(filter: { titleContains: $q }) { totalElements content { id } } }',
        { q: text },
      ],
      ['movie id', 'query ($q: ID!) { movie(id: $q) { title } }', { q: text }],
      ['moviesByIds', 'query ($q: ID!) { moviesByIds(ids: [$q, "1"]) { id } }', { q: text }],
      ['summarize', 'query ($q: ID!) { summarizeMovieReviews(movieId: $q) { reviewCount } }', { q: text }],
      [
        'login',
        'mutation ($q: String!) { login(input: { username: $q, password: $q }) { token } }',
        { q: text },
      ],
      [
        'register',
        'mutation ($q: String!) { register(input: { username: $q, email: "h@example.com", password: "secret123" }) { token } }',
        { q: text },
      ],
    ];
    for (const [sink, query, variables] of sinks) {
      cases.push(graphqlPost('strings: /graphql variables', `${sink} ${tag}`, query, variables, { echoes }));
    }
    cases.push(
      graphqlPost(
        'strings: /graphql literals',
        `search literal ${tag}`,
        `{ search(query: ${JSON.stringify(text)}) { __typename } }`,
        undefined,
        { echoes },
      ),
    );
    const tools: Array<[string, unknown, SessionRef]> = [
      ['searchMovies', { filter: { titleContains: text } }, 'anonymous'],
      ['getMovie', { id: text }, 'anonymous'],
      ['summarizeMovieReviews', { movieId: text }, 'anonymous'],
      ['recommendMoviesForMood', { mood: text }, 'anonymous'],
      ['addToWatchlist', { subject: { movieId: text } }, 'user'],
      ['createReview', { input: { subject: { movieId: '3' }, score: 5, comment: text } }, 'user'],
    ];
    for (const [tool, args, session] of tools) {
      cases.push(
        mcpPost('strings: tool arguments', `${tool} ${tag}`, toolCall(tool, args), { session, echoes }),
      );
    }
  });
  return cases;
}

/** Page numbers and sizes that are not: null, negative, huge, fractional, of the wrong type. */
function paginationCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const field of ['movies', 'people', 'tvShows']) {
    BAD_NUMBERS.forEach((value, i) => {
      const shown = `${field} ${JSON.stringify(value)} #${i}`;
      cases.push(
        graphqlPost(
          'pagination',
          `size literal ${shown}`,
          `{ ${field}(size: ${literal(value)}) { size totalElements content { id } } }`,
        ),
        graphqlPost(
          'pagination',
          `size variable ${shown}`,
          `query ($s: Int) { ${field}(size: $s) { size content { id } } }`,
          { s: value },
        ),
        graphqlPost(
          'pagination',
          `page variable ${shown}`,
          `query ($p: Int) { ${field}(page: $p) { currentPage content { id } } }`,
          { p: value },
        ),
      );
    });
  }
  BAD_NUMBERS.forEach((value, i) => {
    cases.push(
      mcpPost(
        'pagination',
        `searchMovies size ${JSON.stringify(value)} #${i}`,
        toolCall('searchMovies', { size: value }),
      ),
      mcpPost(
        'pagination',
        `searchMovies page ${JSON.stringify(value)} #${i}`,
        toolCall('searchMovies', { page: value }),
      ),
    );
  });
  return cases;
}

function tokenCases(tokens: CorpusTokens): HostileCase[] {
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

/** Bodies that are not the JSON they claim to be. */
const BAD_BODIES: ReadonlyArray<[string, string | Uint8Array]> = [
  ['empty', ''],
  ['truncated', '{"query": "{ movie(id: \\"1\\") { title }'],
  ['open brace', '{'],
  ['array', '[]'],
  ['array of message', '[{"query":"{ __typename }"}]'],
  ['null', 'null'],
  ['string', '"hello"'],
  ['number', '42'],
  ['true', 'true'],
  ['trailing garbage', '{"query":"{ __typename }"} garbage'],
  ['single quotes', "{'query': '{ __typename }'}"],
  ['NaN', '{"query": NaN}'],
  ['comment', '{"query": "{ __typename }" /* c */}'],
  ['BOM', '\ufeff{"query":"{ __typename }"}'],
  ['duplicate keys', '{"query":"{ __typename }","query":"{ me { id } }"}'],
  ['query a number', '{"query": 5}'],
  ['query null', '{"query": null}'],
  ['query an object', '{"query": {"a": 1}}'],
  ['variables a string', '{"query":"{ __typename }","variables":"x"}'],
  ['variables an array', '{"query":"{ __typename }","variables":[1]}'],
  ['operationName a number', '{"query":"{ __typename }","operationName":5}'],
  ['extensions a string', '{"query":"{ __typename }","extensions":"x"}'],
  [
    '__proto__ variables',
    '{"query":"query ($s: Int) { movies(size: $s) { size } }","variables":{"__proto__":{"s":100}}}',
  ],
  ['huge number', `{"query":"{ __typename }","variables":{"n":1${'0'.repeat(400)}}}`],
  ['invalid UTF-8', new Uint8Array([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d])],
  [
    'overlong UTF-8 slash',
    new Uint8Array([
      ...Buffer.from('{"query":"{ search(query: \\"'),
      0xc0,
      0xaf,
      ...Buffer.from('\\") { __typename } }"}'),
    ]),
  ],
  [
    'lone surrogate escape',
    '{"query":"query ($q: String!) { search(query: $q) { __typename } }","variables":{"q":"\\ud800"}}',
  ],
  ['raw NUL in document', '{"query":"{ search(query: \\"a\u0000b\\") { __typename } }"}'],
  ['escaped NUL in document', '{"query":"{ search(query: \\"a\\\\u0000b\\") { __typename } }"}'],
  ['deep JSON array', nestedJson(40000, 'array')],
  ['deep JSON object', nestedJson(20000, 'object')],
];

function bodyCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const [name, body] of BAD_BODIES) {
    cases.push(
      {
        kind: 'http',
        category: 'bad JSON',
        name: `/graphql ${name}`,
        method: 'POST',
        path: '/graphql',
        headers: JSON_HEADERS,
        body,
      },
      { ...mcpPost('bad JSON', `/mcp in a session ${name}`, body, { raw: true }), body },
      {
        ...mcpPost('bad JSON', `/mcp without a session ${name}`, body, { raw: true, session: 'none' }),
        body,
      },
    );
  }
  return cases;
}

function mediaTypeCases(): HostileCase[] {
  const types = [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/graphql',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json;;;',
    'application/jsonp',
    '*/*',
    'garbage',
    '',
  ];
  const accepts = [
    'text/html',
    'application/xml',
    'application/graphql-response+json;q=0',
    'garbage/',
    '*/*;q=abc',
    'text/event-stream',
    'application/json;charset=iso-8859-1',
    ',,,',
  ];
  const encodings = ['gzip', 'br', 'deflate', 'compress', 'identity', 'gzip, br', 'x-unknown', 'GZIP'];
  const query = JSON.stringify({ query: '{ movie(id: "1") { title } }' });
  const list = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
  const cases: HostileCase[] = [];
  for (const type of types) {
    cases.push(
      {
        kind: 'http',
        category: 'media types',
        name: `/graphql content-type ${type}`,
        method: 'POST',
        path: '/graphql',
        headers: { ...JSON_HEADERS, 'content-type': type },
        body: query,
      },
      mcpPost('media types', `/mcp content-type ${type}`, list, {
        raw: true,
        headers: { 'content-type': type },
      }),
    );
  }
  for (const accept of accepts) {
    cases.push(
      {
        kind: 'http',
        category: 'media types',
        name: `/graphql accept ${accept}`,
        method: 'POST',
        path: '/graphql',
        headers: { ...JSON_HEADERS, accept },
        body: query,
      },
      mcpPost('media types', `/mcp accept ${accept}`, list, { raw: true, headers: { accept } }),
    );
  }
  for (const encoding of encodings) {
    cases.push(
      {
        kind: 'http',
        category: 'content encodings',
        name: `/graphql ${encoding}`,
        method: 'POST',
        path: '/graphql',
        headers: { ...JSON_HEADERS, 'content-encoding': encoding },
        body: query,
      },
      mcpPost('content encodings', `/mcp ${encoding}`, list, {
        raw: true,
        headers: { 'content-encoding': encoding },
      }),
    );
  }
  return cases;
}

/** Bodies and documents that are too large or too deep, and documents built to be expensive. */
function sizeAndBombCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const big = 'x'.repeat(200_000);
  cases.push(
    graphqlPost('huge and deep', 'body over the limit', `{ search(query: "${big}") { __typename } }`),
    mcpPost(
      'huge and deep',
      'mcp body over the limit',
      toolCall('searchMovies', { filter: { titleContains: big } }),
    ),
    graphqlPost(
      'huge and deep',
      '90 KB string variable',
      'query ($q: String!) { search(query: $q) { __typename } }',
      {
        q: 'y'.repeat(90_000),
      },
    ),
    graphqlPost('huge and deep', '4,900 tokens', `{ movie(id: "1") { ${repeat(4900, () => 'title')} } }`),
    graphqlPost('huge and deep', '6,000 tokens', `{ movie(id: "1") { ${repeat(6000, () => 'title')} } }`),
    graphqlPost(
      'huge and deep',
      '2,000 nested selections',
      `${'{ movie(id: "1") '.repeat(1)}${'{ cast { movie '.repeat(1000)}{ title }${' } }'.repeat(1000)} }`,
    ),
    graphqlPost(
      'huge and deep',
      '2,400 nested list literal',
      `{ moviesByIds(ids: ${'['.repeat(2400)}"1"${']'.repeat(2400)}) { id } }`,
    ),
    graphqlPost(
      'huge and deep',
      '2,400 nested object literal',
      `{ movies(filter: ${'{ a: '.repeat(2400)}1${' }'.repeat(2400)}) { size } }`,
    ),
    {
      kind: 'http',
      category: 'huge and deep',
      name: 'variables nested 5,000 deep',
      method: 'POST',
      path: '/graphql',
      headers: JSON_HEADERS,
      body: `{"query":"query ($f: MovieFilter) { movies(filter: $f) { size } }","variables":{"f":${nestedJson(5000)}}}`,
    },
    {
      kind: 'http',
      category: 'huge and deep',
      name: 'list variable nested 5,000 deep',
      method: 'POST',
      path: '/graphql',
      headers: JSON_HEADERS,
      body: `{"query":"query ($ids: [ID!]!) { moviesByIds(ids: $ids) { id } }","variables":{"ids":${nestedJson(5000, 'array', '"1"')}}}`,
    },
    graphqlPost(
      'huge and deep',
      '10,000 variables',
      `{ __typename }`,
      Object.fromEntries(
        repeat(10000, (i) => `v${i}`, ',')
          .split(',')
          .map((k) => [k, 1]),
      ),
    ),
    graphqlPost(
      'huge and deep',
      '2,000 variable definitions',
      `query (${repeat(1000, (i) => `$v${i}: Int`)}) { __typename }`,
    ),
    graphqlPost('huge and deep', 'long operation name', `query ${'N'.repeat(50000)} { __typename }`),
    graphqlPost(
      'huge and deep',
      '1,000 operations',
      repeat(1000, (i) => `query Q${i} { __typename }`),
    ),
  );
  for (const kind of ['object', 'array'] as const) {
    cases.push(
      {
        ...mcpPost('huge and deep', `tool arguments nested 5,000 deep (${kind})`, '', { raw: true }),
        body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"searchMovies","arguments":{"filter":${nestedJson(5000, kind)}}}}`,
      },
      {
        ...mcpPost('huge and deep', `params nested 5,000 deep (${kind})`, '', { raw: true }),
        body: `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":${nestedJson(5000, kind)}}}`,
      },
      {
        ...mcpPost('huge and deep', `_meta nested 5,000 deep (${kind})`, '', { raw: true }),
        body: `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":${nestedJson(5000, kind)}}}`,
      },
    );
  }
  // Bombs: documents small on the wire and expensive if measured or executed naively.
  for (const levels of [20, 25, 30]) {
    cases.push(
      graphqlPost(
        'alias and fragment bombs',
        `doubling chain ${levels} on Movie`,
        `{ movie(id: "1") { ...F${levels} } }\n${doublingChain(levels, 'Movie', 'title')}`,
      ),
      graphqlPost(
        'alias and fragment bombs',
        `doubling chain ${levels} on Query`,
        `{ ...F${levels} }\n${doublingChain(levels, 'Query', 'movies(size: 100) { content { directors { name } } }')}`,
      ),
      graphqlPost(
        'alias and fragment bombs',
        `doubling chain ${levels} on Mutation`,
        `mutation { ...F${levels} }\n${doublingChain(levels, 'Mutation', 'login(input: { username: "user", password: "wrong-password" }) { token }')}`,
      ),
    );
  }
  const nestedChain = ['fragment G0 on Person { name }'];
  for (let i = 1; i <= 40; i++)
    nestedChain.push(
      `fragment G${i} on Person { ...G${i - 1} directedMovies { directors { ...G${i - 1} } } }`,
    );
  cases.push(
    graphqlPost(
      'alias and fragment bombs',
      'nested list chain 40',
      `{ people(size: 100) { content { ...G40 } } }\n${nestedChain.join('\n')}`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '16 aliased movies',
      `{ ${repeat(16, (i) => `a${i}: movie(id: "1") { title }`)} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '400 aliased searches',
      `{ ${repeat(400, (i) => `a${i}: search(query: "a") { __typename }`)} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '300 aliased summaries',
      `{ ${repeat(300, (i) => `a${i}: summarizeMovieReviews(movieId: "1") { summary }`)} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '200 aliased logins',
      `mutation { ${repeat(200, (i) => `a${i}: login(input: { username: "user", password: "nope${i}" }) { token }`)} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '2 logins',
      'mutation { a: login(input: { username: "user", password: "x" }) { token } b: login(input: { username: "user", password: "y" }) { token } }',
    ),
    graphqlPost(
      'alias and fragment bombs',
      '1,000 spreads of one fragment',
      `{ movie(id: "1") { ${repeat(1000, () => '...T')} } } fragment T on Movie { title }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '400 distinct fragments',
      `{ movie(id: "1") { ${repeat(400, (i) => `...T${i}`)} } } ${repeat(400, (i) => `fragment T${i} on Movie { title }`)}`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      'overlapping same-name fields',
      `{ ${repeat(450, () => 'a: movie(id: "1") { title }')} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      'conflicting same-name fields',
      `{ ${repeat(450, (i) => `a: movie(id: "${i + 1}") { title }`)} }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '1,000 @include on one field',
      `{ movie(id: "1") { title ${repeat(1000, () => '@include(if: true)')} } }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      '1,000 unknown directives',
      `{ movie(id: "1") { title ${repeat(1000, (i) => `@d${i}`)} } }`,
    ),
    graphqlPost(
      'alias and fragment bombs',
      'introspection bomb',
      '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
    ),
    graphqlPost('alias and fragment bombs', '4,000 __typename', `{ ${repeat(4000, () => '__typename')} }`),
    graphqlPost(
      'alias and fragment bombs',
      'fragment cycle',
      '{ movie(id: "1") { ...A } } fragment A on Movie { ...B } fragment B on Movie { ...A }',
    ),
    graphqlPost(
      'alias and fragment bombs',
      'self-spreading fragment',
      '{ movie(id: "1") { ...A } } fragment A on Movie { title ...A }',
    ),
  );
  return cases;
}

function variableTypeCases(): HostileCase[] {
  const cases: Array<[string, string, unknown]> = [
    ['mood a number', 'query ($m: Mood!) { recommendMoviesForMood(mood: $m) { id } }', { m: 5 }],
    ['mood unknown', 'query ($m: Mood!) { recommendMoviesForMood(mood: $m) { id } }', { m: 'NOPE' }],
    ['mood null', 'query ($m: Mood!) { recommendMoviesForMood(mood: $m) { id } }', { m: null }],
    ['mood missing', 'query ($m: Mood!) { recommendMoviesForMood(mood: $m) { id } }', {}],
    ['mood lower case', 'query ($m: Mood!) { recommendMoviesForMood(mood: $m) { id } }', { m: 'horror' }],
    [
      'excludeWatched a string',
      'query ($e: Boolean) { recommendMoviesForMood(mood: HORROR, excludeWatched: $e) { id } }',
      { e: 'yes' },
    ],
    ['id true', 'query ($id: ID!) { movie(id: $id) { title } }', { id: true }],
    ['id 1.5', 'query ($id: ID!) { movie(id: $id) { title } }', { id: 1.5 }],
    ['id an object', 'query ($id: ID!) { movie(id: $id) { title } }', { id: {} }],
    ['id a list', 'query ($id: ID!) { movie(id: $id) { title } }', { id: ['1'] }],
    ['id negative', 'query ($id: ID!) { movie(id: $id) { title } }', { id: -1 }],
    ['id huge', 'query ($id: ID!) { movie(id: $id) { title } }', { id: '99999999999999999999' }],
    ['id zero-padded', 'query ($id: ID!) { movie(id: $id) { title } }', { id: '0001' }],
    ['id 1e3', 'query ($id: ID!) { movie(id: $id) { title } }', { id: '1e3' }],
    ['ids nested lists', 'query ($ids: [ID!]!) { moviesByIds(ids: $ids) { id } }', { ids: [['1']] }],
    ['ids with null', 'query ($ids: [ID!]!) { moviesByIds(ids: $ids) { id } }', { ids: ['1', null] }],
    [
      'ids 101',
      'query ($ids: [ID!]!) { moviesByIds(ids: $ids) { id } }',
      { ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
    ],
    ['ids empty', 'query ($ids: [ID!]!) { moviesByIds(ids: $ids) { id } }', { ids: [] }],
    ['filter a string', 'query ($f: MovieFilter) { movies(filter: $f) { size } }', { f: 'x' }],
    [
      'filter genre unknown',
      'query ($f: MovieFilter) { movies(filter: $f) { size } }',
      { f: { genre: 'NOPE' } },
    ],
    [
      'filter rating a string',
      'query ($f: MovieFilter) { movies(filter: $f) { size } }',
      { f: { minRating: '5' } },
    ],
    ['filter rating 11', 'query ($f: MovieFilter) { movies(filter: $f) { size } }', { f: { minRating: 11 } }],
    ['filter unknown key', 'query ($f: MovieFilter) { movies(filter: $f) { size } }', { f: { hacker: 1 } }],
    [
      'filter years reversed',
      'query ($f: MovieFilter) { movies(filter: $f) { size } }',
      { f: { minYear: 2100, maxYear: 1888 } },
    ],
    ['sort field unknown', 'query ($s: MovieSort) { movies(sort: $s) { size } }', { s: { field: 'NOPE' } }],
    ['sort null field', 'query ($s: MovieSort) { movies(sort: $s) { size } }', { s: { field: null } }],
    [
      'subject both keys',
      'mutation ($s: WatchlistSubjectInput!) { addToWatchlist(subject: $s) { id } }',
      { s: { movieId: '1', tvShowId: '1' } },
    ],
    [
      'subject no key',
      'mutation ($s: WatchlistSubjectInput!) { addToWatchlist(subject: $s) { id } }',
      { s: {} },
    ],
    [
      'subject null key',
      'mutation ($s: WatchlistSubjectInput!) { addToWatchlist(subject: $s) { id } }',
      { s: { movieId: null } },
    ],
    [
      'score a string',
      'mutation ($i: CreateReviewInput!) { createReview(input: $i) { id } }',
      { i: { subject: { movieId: '1' }, score: '5' } },
    ],
    [
      'score 5.5',
      'mutation ($i: CreateReviewInput!) { createReview(input: $i) { id } }',
      { i: { subject: { movieId: '1' }, score: 5.5 } },
    ],
    ['undefined variable used', '{ movie(id: $nope) { title } }', { nope: '1' }],
    ['variable type unknown', 'query ($x: Nope) { __typename }', { x: 1 }],
    ['variable of an output type', 'query ($x: Movie) { __typename }', { x: {} }],
    [
      'input register with extra key',
      'mutation ($i: RegisterInput!) { register(input: $i) { token } }',
      { i: { username: 'abc', email: 'a@b.c', password: 'secret123', role: 'ADMIN' } },
    ],
    [
      'createMovie as anonymous',
      'mutation { createMovie(input: { title: "X", releaseYear: 2000 }) { id } }',
      undefined,
    ],
    ['deleteMovie as anonymous', 'mutation { deleteMovie(id: "1") }', undefined],
    ['subscription', 'subscription { movie(id: "1") { title } }', undefined],
    // A @oneOf key given by a nullable variable that is absent or null, flat and nested.
    [
      'subject key by an absent variable',
      'mutation ($m: ID) { addToWatchlist(subject: { movieId: $m }) { id } }',
      {},
    ],
    [
      'subject key by a null variable',
      'mutation ($m: ID) { addToWatchlist(subject: { movieId: $m }) { id } }',
      { m: null },
    ],
    [
      'subject key by a null variable with a default',
      'mutation ($m: ID = "1") { addToWatchlist(subject: { tvShowId: $m }) { id } }',
      { m: null },
    ],
    [
      'review subject key by an absent variable',
      'mutation ($m: ID) { createReview(input: { subject: { movieId: $m }, score: 5 }) { id } }',
      undefined,
    ],
    [
      'subject key by a null variable in a fragment',
      'mutation ($m: ID) { ...W } fragment W on Mutation { addToWatchlist(subject: { movieId: $m }) { id } }',
      { m: null },
    ],
  ];
  return cases.map(([name, query, variables]) => graphqlPost('variable types', name, query, variables));
}

function getCases(): HostileCase[] {
  const q = (text: string) => encodeURIComponent(text);
  const params = [
    ['no query', ''],
    ['empty query', 'query='],
    [
      'mutation',
      `query=${q('mutation { login(input: { username: "user", password: "user123" }) { token } }')}`,
    ],
    ['doubling chain', `query=${q(`{ movie(id: "1") { ...F30 } }\n${doublingChain(30, 'Movie', 'title')}`)}`],
    [
      'bad variables JSON',
      `query=${q('query ($s: Int) { movies(size: $s) { size } }')}&variables=${q('{bad')}`,
    ],
    ['variables an array', `query=${q('{ __typename }')}&variables=${q('[]')}`],
    [
      'variables null size',
      `query=${q('query ($s: Int) { movies(size: $s) { size content { id } } }')}&variables=${q('{"s":null}')}`,
    ],
    ['bad extensions', `query=${q('{ __typename }')}&extensions=${q('{x')}`],
    ['unknown operationName', `query=${q('query A { __typename }')}&operationName=B`],
    ['two query params', `query=${q('{ __typename }')}&query=${q('{ me { id } }')}`],
    ['NUL in URL', `query=${q('{ search(query: "a')}%00${q('") { __typename } }')}`],
    ['bad percent escape', 'query=%zz%'],
    ['invalid UTF-8 escape', `query=${q('{ search(query: "')}%ff%fe${q('") { __typename } }')}`],
    ['overlong UTF-8 escape', `query=${q('{ search(query: "')}%c0%af${q('") { __typename } }')}`],
    [
      'lone surrogate escape',
      `query=${q('query ($q: String!) { search(query: $q) { __typename } }')}&variables=${q('{"q":"\\ud800"}')}`,
    ],
    ['SQL in search', `query=${q(`{ search(query: "' OR 1=1 --") { __typename } }`)}`],
    ['LIKE wildcards', `query=${q('{ search(query: "%_\\\\") { __typename } }')}`],
    ['12 KB URL', `query=${q(`{ __typename } #${'x'.repeat(12000)}`)}`],
    ['20 KB URL', `query=${q(`{ __typename } #${'x'.repeat(20000)}`)}`],
    ['bracket params', 'query[a]=1&query[b]=2'],
    ['size null literal', `query=${q('{ movies(size: null, page: null) { size content { id } } }')}`],
    ['aliases', `query=${q(`{ ${repeat(20, (i) => `a${i}: movie(id: "1") { title }`)} }`)}`],
  ];
  const cases = params.map(([name, query]) => graphqlGet('GET /graphql', name!, query!));
  cases.push(
    graphqlGet('GET /graphql', 'accept xml', `query=${q('{ __typename }')}`, { accept: 'application/xml' }),
    graphqlGet('GET /graphql', 'accept garbage', `query=${q('{ __typename }')}`, { accept: ',,;;' }),
  );
  // fetch refuses TRACE: it is among the raw cases.
  for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
    cases.push({
      kind: 'http',
      category: 'GET /graphql',
      name: `${method} /graphql`,
      method,
      path: '/graphql',
      headers: JSON_HEADERS,
      body: method === 'OPTIONS' ? undefined : '{}',
    });
  }
  return cases;
}

function jsonRpcCases(): HostileCase[] {
  const messages: Array<[string, unknown]> = [
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
    ['jsonrpc a number', { jsonrpc: 2, id: 1, method: 'tools/list' }],
    ['jsonrpc missing', { id: 1, method: 'tools/list' }],
    ['jsonrpc null', { jsonrpc: null, id: 1, method: 'tools/list' }],
    ['id an object', { jsonrpc: '2.0', id: {}, method: 'tools/list' }],
    ['id an array', { jsonrpc: '2.0', id: [1], method: 'tools/list' }],
    ['id a float', { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }],
    ['id true', { jsonrpc: '2.0', id: true, method: 'tools/list' }],
    ['id null', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
    ['id a long string', { jsonrpc: '2.0', id: 'i'.repeat(5000), method: 'tools/list' }],
    ['id negative', { jsonrpc: '2.0', id: -1, method: 'tools/list' }],
    ['id huge', { jsonrpc: '2.0', id: 1e308, method: 'tools/list' }],
    ['id with NUL', { jsonrpc: '2.0', id: 'a\u0000b', method: 'tools/list' }],
    ['method missing', { jsonrpc: '2.0', id: 1 }],
    ['method a number', { jsonrpc: '2.0', id: 1, method: 5 }],
    ['method null', { jsonrpc: '2.0', id: 1, method: null }],
    ['method empty', { jsonrpc: '2.0', id: 1, method: '' }],
    ['method unknown', { jsonrpc: '2.0', id: 1, method: 'tools/unknown' }],
    ['method long', { jsonrpc: '2.0', id: 1, method: 'm'.repeat(10000) }],
    ['method rpc.discover', { jsonrpc: '2.0', id: 1, method: 'rpc.discover' }],
    [
      'initialize again',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    ],
    [
      'initialize bad params',
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 5 } },
    ],
    ['notification with id', { jsonrpc: '2.0', id: 1, method: 'notifications/initialized' }],
    ['unknown notification', { jsonrpc: '2.0', method: 'notifications/nope' }],
    ['ping params an array', { jsonrpc: '2.0', id: 1, method: 'ping', params: [] }],
    ['ping params a string', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }],
    ['tools/list cursor a number', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } }],
    ['tools/list params a string', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'x' }],
    ['tools/call name a number', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }],
    ['tools/call name null', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: null } }],
    ['tools/call no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['tools/call params empty', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }],
    ['tools/call params an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: [] }],
    ['tools/call params a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'searchMovies' }],
    [
      'tools/call arguments a string',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies', arguments: 'x' } },
    ],
    [
      'tools/call arguments an array',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies', arguments: [] } },
    ],
    [
      'tools/call arguments null',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies', arguments: null } },
    ],
    [
      'tools/call arguments a number',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies', arguments: 5 } },
    ],
    [
      'tools/call unknown tool',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'dropDatabase', arguments: {} } },
    ],
    [
      'tools/call tool name with NUL',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies\u0000', arguments: {} } },
    ],
    [
      'tools/call progressToken an object',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'searchMovies', arguments: {}, _meta: { progressToken: {} } },
      },
    ],
    [
      'tools/call _meta a string',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'searchMovies', arguments: {}, _meta: 'x' },
      },
    ],
    [
      'cancel an odd request id',
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } },
    ],
    ['cancel without params', { jsonrpc: '2.0', method: 'notifications/cancelled' }],
    [
      'progress notification from client',
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 'x' } },
    ],
    [
      'logging/setLevel unknown level',
      { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'loud' } },
    ],
    ['resources/list', { jsonrpc: '2.0', id: 1, method: 'resources/list' }],
    [
      'resources/read',
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///etc/passwd' } },
    ],
    ['prompts/get', { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'x' } }],
    ['completion/complete', { jsonrpc: '2.0', id: 1, method: 'completion/complete', params: {} }],
    ['tasks/get', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'x' } }],
    ['a response object', { jsonrpc: '2.0', id: 1, result: {} }],
    ['an error object', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x' } }],
    ['result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }],
    ['empty object', {}],
    ['batch of one', [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]],
    ['empty batch', []],
    [
      '__proto__ params',
      JSON.parse(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"searchMovies"},"arguments":{}}}',
      ),
    ],
  ];
  const cases: HostileCase[] = [];
  for (const [name, message] of messages) {
    // An unknown resource is named back in the not-found error's data.uri, as the spec has it.
    const uri = (message as { params?: { uri?: unknown } }).params?.uri;
    const echoes = typeof uri === 'string' ? [uri] : undefined;
    cases.push(mcpPost('bad JSON-RPC', `${name} (in a session)`, message, { echoes }));
    cases.push({ ...mcpPost('bad JSON-RPC', `${name} (no session)`, message), session: undefined });
  }
  return cases;
}

function toolArgumentCases(): HostileCase[] {
  const calls: Array<[string, unknown, SessionRef]> = [
    ['recommendMoviesForMood', {}, 'anonymous'],
    ['recommendMoviesForMood', { mood: 5 }, 'anonymous'],
    ['recommendMoviesForMood', { mood: null }, 'anonymous'],
    ['recommendMoviesForMood', { mood: 'HORROR', excludeWatched: 'yes' }, 'anonymous'],
    ['recommendMoviesForMood', { mood: 'HORROR', extra: 1 }, 'anonymous'],
    ['recommendMoviesForMood', { mood: ['HORROR'] }, 'anonymous'],
    ['summarizeMovieReviews', {}, 'anonymous'],
    ['summarizeMovieReviews', { movieId: 1 }, 'anonymous'],
    ['summarizeMovieReviews', { movieId: null }, 'anonymous'],
    ['summarizeMovieReviews', { movieId: '999999' }, 'anonymous'],
    ['summarizeMovieReviews', { movieId: '-1' }, 'anonymous'],
    ['searchMovies', { filter: 'x' }, 'anonymous'],
    ['searchMovies', { filter: { genre: 'NOPE' } }, 'anonymous'],
    ['searchMovies', { filter: { minRating: 'high' } }, 'anonymous'],
    ['searchMovies', { filter: { minRating: -5, maxRating: 50 } }, 'anonymous'],
    ['searchMovies', { filter: { minYear: 1.5 } }, 'anonymous'],
    ['searchMovies', { filter: { titleContains: '' } }, 'anonymous'],
    ['searchMovies', { filter: { titleContains: 'x'.repeat(20000) } }, 'anonymous'],
    ['searchMovies', { filter: { nope: 1 } }, 'anonymous'],
    ['searchMovies', { sort: { field: 'NOPE' } }, 'anonymous'],
    ['searchMovies', { sort: 'TITLE' }, 'anonymous'],
    ['searchMovies', { filter: null, sort: null, page: null, size: null }, 'anonymous'],
    ['getMovie', {}, 'anonymous'],
    ['getMovie', { id: '' }, 'anonymous'],
    ['getMovie', { id: '0' }, 'anonymous'],
    ['getMovie', { id: '2147483648' }, 'anonymous'],
    ['getMovie', { id: { $gt: '' } }, 'anonymous'],
    ['myWatchlist', {}, 'anonymous'],
    ['myWatchlist', { extra: true }, 'user'],
    ['addToWatchlist', {}, 'user'],
    ['addToWatchlist', { subject: {} }, 'user'],
    ['addToWatchlist', { subject: { movieId: '1', tvShowId: '1' } }, 'user'],
    ['addToWatchlist', { subject: { movieId: null } }, 'user'],
    ['addToWatchlist', { subject: { movieId: '999999' } }, 'user'],
    ['addToWatchlist', { subject: { movieId: '5' }, status: 'LOVED' }, 'user'],
    ['addToWatchlist', { subject: 'movie 5' }, 'user'],
    ['addToWatchlist', { subject: { movieId: '5' } }, 'anonymous'],
    ['setWatchStatus', {}, 'user'],
    ['setWatchStatus', { itemId: '1', status: 'NOPE' }, 'user'],
    ['setWatchStatus', { itemId: '999999', status: 'WATCHED' }, 'user'],
    ['setWatchStatus', { itemId: '1', status: 'WATCHED' }, 'user'],
    ['setWatchStatus', { itemId: ['1'], status: 'WATCHED' }, 'user'],
    ['removeFromWatchlist', {}, 'user'],
    ['removeFromWatchlist', { itemId: '999999' }, 'user'],
    ['removeFromWatchlist', { itemId: 'abc' }, 'user'],
    ['removeFromWatchlist', { itemId: 1 }, 'user'],
    ['removeFromWatchlist', { itemId: '1' }, 'anonymous'],
    ['createReview', {}, 'user'],
    ['createReview', { input: {} }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: 0 } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: 11 } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: 5.5 } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: '5' } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: 5, comment: 'c'.repeat(2001) } }, 'user'],
    ['createReview', { input: { subject: { movieId: '999999' }, score: 5 } }, 'user'],
    ['createReview', { input: { subject: { tvShowId: '999999' }, score: 5 } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1', tvShowId: '1' }, score: 5 } }, 'user'],
    ['createReview', { input: { subject: { movieId: '1' }, score: 5, userId: '1' } }, 'user'],
    ['createReview', { input: { subject: { movieId: '2' }, score: 5 } }, 'anonymous'],
  ];
  return calls.map(([tool, args, session], i) =>
    mcpPost(
      'bad tool arguments',
      `${tool} ${JSON.stringify(args).slice(0, 60)} #${i} (${session})`,
      toolCall(tool, args),
      {
        session,
      },
    ),
  );
}

/**
 * The agent-facing surfaces (docs/mcp.md): idempotency keys (tool argument, `_meta`, the /graphql header), confirmation
 * tokens and 2026-07-28 confirmation rounds (inputResponses, requestState), offsets, resources, prompts
 * and completions.
 */
function agentSafetyCases(tokens: CorpusTokens): HostileCase[] {
  const cases: HostileCase[] = [];
  const add = (
    category: string,
    name: string,
    message: unknown,
    options: Parameters<typeof mcpPost>[3] = {},
  ) => cases.push(mcpPost(category, name, message, options));
  const request = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: ++rpcId, method, params });
  const badKeys: unknown[] = [
    ...HOSTILE_STRINGS.filter((value) => value.length < 200),
    'k'.repeat(129),
    'k'.repeat(100_000),
    5,
    -1,
    null,
    true,
    [],
    ['a'],
    {},
    { key: 'a' },
  ];
  badKeys.forEach((key, i) => {
    const label = JSON.stringify(key).slice(0, 40);
    const echoes = typeof key === 'string' ? [key] : undefined;
    add(
      'idempotency keys',
      `idempotencyKey argument ${label} #${i}`,
      toolCall('addToWatchlist', { subject: { movieId: '3' }, idempotencyKey: key }),
      { session: 'user', echoes },
    );
    add(
      'idempotency keys',
      `_meta key ${label} #${i}`,
      {
        ...toolCall('setWatchStatus', { itemId: '999999', status: 'WATCHED' }),
        params: {
          name: 'setWatchStatus',
          arguments: { itemId: '999999', status: 'WATCHED' },
          _meta: { 'io.moviedb/idempotency-key': key },
        },
      },
      { session: 'user', echoes },
    );
  });
  add(
    'idempotency keys',
    'key on a read tool argument',
    toolCall('getMovie', { id: '1', idempotencyKey: 'k1' }),
    { session: 'user' },
  );
  add(
    'idempotency keys',
    'key anonymous',
    toolCall('addToWatchlist', { subject: { movieId: '3' }, idempotencyKey: 'k1' }),
  );
  add(
    'idempotency keys',
    'same key, other tool',
    toolCall('createReview', {
      input: { subject: { movieId: '999999' }, score: 5 },
      idempotencyKey: 'corpus-shared',
    }),
    { session: 'user' },
  );
  add(
    'idempotency keys',
    'same key, other arguments',
    toolCall('addToWatchlist', { subject: { movieId: '999998' }, idempotencyKey: 'corpus-shared' }),
    { session: 'user' },
  );
  // Header values fetch can send: printable ASCII and Latin-1, no control characters.
  const headerKeys = [
    '',
    ' ',
    '"',
    '""',
    '"unterminated',
    'a, b',
    'k'.repeat(8000),
    "'; DROP TABLE idempotency_keys; --",
    'é',
    '../x',
  ];
  headerKeys.forEach((key, i) => {
    cases.push(
      graphqlPost(
        'idempotency keys',
        `Idempotency-Key header ${JSON.stringify(key).slice(0, 40)} #${i}`,
        'mutation { setWatchStatus(itemId: "999999", status: WATCHED) { id } }',
        undefined,
        { headers: { authorization: `Bearer ${tokens.user}`, 'idempotency-key': key }, echoes: [key] },
      ),
    );
  });
  cases.push(
    graphqlPost(
      'idempotency keys',
      'Idempotency-Key on a query, anonymous',
      '{ movie(id: "1") { title } }',
      undefined,
      {
        headers: { 'idempotency-key': 'k'.repeat(500) },
      },
    ),
  );

  const badTokens: unknown[] = [
    ...HOSTILE_STRINGS.filter((value) => value.length < 2000),
    'v1.',
    'v1..',
    'v1.AAAA.BBBB',
    `v1.${Buffer.from('{"p":{"k":"token","c":"x"},"exp":99999999999}').toString('base64url')}.AAAA`,
    `v1.${Buffer.from('not json').toString('base64url')}.${'A'.repeat(43)}`,
    tokens.user,
    tokens.algNone,
    't'.repeat(1025),
    5,
    null,
    {},
    ['v1.a.b'],
  ];
  badTokens.forEach((token, i) => {
    add(
      'confirmation',
      `confirmationToken ${JSON.stringify(token).slice(0, 40)} #${i}`,
      toolCall('removeFromWatchlist', { itemId: '1', confirmationToken: token }),
      {
        session: 'user',
        echoes: typeof token === 'string' ? [token] : undefined,
      },
    );
  });
  add(
    'confirmation',
    'confirmationToken on a tool that does not ask',
    toolCall('addToWatchlist', { subject: { movieId: '3' }, confirmationToken: 'x' }),
    { session: 'user' },
  );
  // 2026-07-28 confirmation rounds: no session, the envelope in every request.
  const modern = (name: string, params: Record<string, unknown>, echoes?: string[]) =>
    cases.push({
      kind: 'http',
      category: 'confirmation',
      name,
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.user}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'removeFromWatchlist',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'tools/call',
        params: {
          name: 'removeFromWatchlist',
          arguments: { itemId: '1' },
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'hostile', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
        },
      }),
      echoes,
    });
  const responses: unknown[] = [
    { confirm: { action: 'accept', content: { confirm: true } } },
    { confirm: { action: 'accept', content: { confirm: 'yes' } } },
    { confirm: { action: 'maybe' } },
    { confirm: 'accept' },
    { confirm: null },
    { other: { action: 'accept' } },
    { confirm: { method: 'elicitation/create', result: { action: 'accept' } } },
    [],
    'accept',
  ];
  responses.forEach((inputResponses, i) =>
    modern(`inputResponses ${JSON.stringify(inputResponses).slice(0, 50)} #${i}`, { inputResponses }),
  );
  for (const [i, requestState] of ['', 'v1.x.y', 'x'.repeat(20_000), tokens.user, 5, null, {}].entries()) {
    modern(`requestState ${JSON.stringify(requestState).slice(0, 40)} #${i}`, {
      requestState,
      inputResponses: responses[0],
    });
  }

  for (const [i, offset] of [-1, 1.5, '3', 1e9, 100_001, null, [], {}].entries()) {
    add(
      'offsets',
      `myWatchlist offset ${JSON.stringify(offset)} #${i}`,
      toolCall('myWatchlist', { offset }),
      { session: 'user' },
    );
    add(
      'offsets',
      `recommendMoviesForMood offset ${JSON.stringify(offset)} #${i}`,
      toolCall('recommendMoviesForMood', { mood: 'HORROR', offset }),
    );
  }
  add('offsets', 'searchMovies offset (pages have page and size)', toolCall('searchMovies', { offset: 1 }));

  const uris: unknown[] = [
    ...HOSTILE_STRINGS,
    'moviedb://movies/',
    'moviedb://movies/0',
    'moviedb://movies/-1',
    'moviedb://movies/01',
    'moviedb://movies/1.5',
    `moviedb://movies/${'9'.repeat(50)}`,
    'moviedb://movies/2147483648',
    'moviedb://movies/1/../2',
    'moviedb://movies/1?x=1',
    'moviedb://movies/1#x',
    'moviedb://movies/%31',
    'moviedb://movies/{id}',
    'MOVIEDB://SCHEMA',
    'moviedb://schema/',
    'moviedb://me/watchlist/../../schema',
    'file:///etc/passwd',
    'http://169.254.169.254/latest/meta-data/',
    'javascript:alert(1)',
    `moviedb://movies/1${'/'.repeat(5000)}`,
    'x'.repeat(50_000),
    5,
    null,
    {},
    ['moviedb://schema'],
  ];
  uris.forEach((uri, i) => {
    const label = `${JSON.stringify(uri).slice(0, 40)} #${i}`;
    const echoes = typeof uri === 'string' ? [uri] : undefined;
    add('resources', `resources/read ${label}`, request('resources/read', { uri }), { echoes });
    if (i % 4 === 0)
      add('resources', `resources/read as user ${label}`, request('resources/read', { uri }), {
        session: 'user',
        echoes,
      });
  });
  add('resources', 'watch list anonymous', request('resources/read', { uri: 'moviedb://me/watchlist' }));
  add(
    'resources',
    'watch list, token-less user session',
    request('resources/read', { uri: 'moviedb://me/watchlist' }),
    { session: 'user-id-anonymous' },
  );
  add('resources', 'resources/list with a cursor', request('resources/list', { cursor: 'x'.repeat(5000) }));
  add('resources', 'resources/templates/list params a string', request('resources/templates/list', 'x'));
  add(
    'resources',
    'resources/subscribe (not offered)',
    request('resources/subscribe', { uri: 'moviedb://schema' }),
  );
  add('resources', 'resources/read no params', { jsonrpc: '2.0', id: ++rpcId, method: 'resources/read' });

  const names: unknown[] = [...HOSTILE_STRINGS, 'PLAN-MOVIE-NIGHT', 'plan-movie-night ', 5, null, {}, []];
  names.forEach((name, i) =>
    add(
      'prompts',
      `prompts/get name ${JSON.stringify(name).slice(0, 40)} #${i}`,
      request('prompts/get', { name, arguments: { mood: 'COMFORT' } }),
      {
        echoes: typeof name === 'string' ? [name] : undefined,
      },
    ),
  );
  const promptArgs: unknown[] = [
    ...HOSTILE_STRINGS.map((mood) => ({ mood })),
    { mood: 'COMFORT', excludeWatched: 'yes' },
    { mood: 'COMFORT', excludeWatched: true },
    { mood: 5 },
    { mood: ['COMFORT'] },
    { mood: 'COMFORT', ...Object.fromEntries(Array.from({ length: 200 }, (_, k) => [`extra${k}`, 'x'])) },
    [],
    'COMFORT',
    null,
  ];
  promptArgs.forEach((args, i) => {
    const echoes =
      args && typeof args === 'object' && !Array.isArray(args)
        ? Object.values(args).filter((v): v is string => typeof v === 'string')
        : undefined;
    add(
      'prompts',
      `prompts/get arguments ${JSON.stringify(args).slice(0, 40)} #${i}`,
      request('prompts/get', { name: 'plan-movie-night', arguments: args }),
      {
        session: i % 3 === 0 ? 'user' : 'anonymous',
        echoes,
      },
    );
  });
  const refs: unknown[] = [
    { type: 'ref/prompt', name: 'nope' },
    { type: 'ref/prompt' },
    { type: 'ref/resource', uri: 'moviedb://nope/{x}' },
    { type: 'ref/resource', uri: 5 },
    { type: 'ref/other', name: 'x' },
    { type: 5 },
    null,
    'ref/prompt',
  ];
  refs.forEach((ref, i) =>
    add(
      'prompts',
      `completion ref ${JSON.stringify(ref).slice(0, 40)} #${i}`,
      request('completion/complete', { ref, argument: { name: 'mood', value: 'c' } }),
    ),
  );
  const completionArguments: unknown[] = [
    ...HOSTILE_STRINGS.map((value) => ({ name: 'mood', value })),
    { name: 'mood', value: 'v'.repeat(50_000) },
    { name: 'mood' },
    { name: 5, value: 'c' },
    { name: 'nope', value: 'c' },
    null,
  ];
  completionArguments.forEach((argument, i) =>
    add(
      'prompts',
      `completion argument ${JSON.stringify(argument).slice(0, 40)} #${i}`,
      request('completion/complete', { ref: { type: 'ref/prompt', name: 'plan-movie-night' }, argument }),
    ),
  );
  return cases;
}

function sessionCases(): HostileCase[] {
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
function clientAnswerCases(): HostileCase[] {
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

/** HTTP that only a raw socket can send. Each asks the server to close the connection after answering. */
function rawCases(): HostileCase[] {
  const body = '{"query":"{ __typename }"}';
  const raw = (name: string, bytes: string | Uint8Array): RawCase => ({
    kind: 'raw',
    category: 'raw HTTP',
    name,
    bytes,
  });
  return [
    raw('garbage request line', 'GARBAGE\r\n\r\n'),
    raw('HTTP/0.9', 'GET /graphql\r\n\r\n'),
    raw('no Host header', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'),
    raw('two Host headers', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'),
    raw(
      'NUL in a header',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n',
    ),
    raw(
      'header without a colon',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColon\r\nConnection: close\r\n\r\n',
    ),
    raw(
      '20 KB header',
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20000)}\r\nConnection: close\r\n\r\n`,
    ),
    raw(
      '20 KB URL',
      `GET /graphql?query=${'q'.repeat(20000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    ),
    raw(
      'Content-Length and Transfer-Encoding',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    ),
    raw(
      'bad chunk size',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    ),
    raw(
      'negative Content-Length',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: -5\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'two Content-Lengths',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 27\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'Content-Length shorter than the body',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'huge Content-Length',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw('bare LF line ends', 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n'),
    raw('HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
    raw('HTTP/3.0 version', 'GET /healthz HTTP/3.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('unknown method', 'FOO /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('TRACE /graphql', 'TRACE /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('TRACE /mcp', 'TRACE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('CONNECT', 'CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n'),
    raw(
      'absolute-form URL',
      `GET http://evil.example/graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
    ),
    raw('asterisk URL', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw(
      'invalid UTF-8 in the path',
      Buffer.concat([
        Buffer.from('GET /graphql?query='),
        Buffer.from([0xff, 0xc0, 0xaf]),
        Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
      ]),
    ),
    raw(
      'pipelined garbage',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}GARBAGE / HTTP/1.1\r\n\r\n`,
    ),
    raw(
      'pipelined: a probe, a mutation over GET and a tool call without a session',
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /graphql?query=mutation%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 58\r\nConnection: close\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
    ),
    raw(
      'chunked JSON for /mcp',
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\n{"j\r\n0\r\n\r\n`,
    ),
    raw(
      'Expect: 100-continue refused',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'header folding',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n b\r\nConnection: close\r\n\r\n',
    ),
    raw('space before colon', 'GET /healthz HTTP/1.1\r\nHost : x\r\nConnection: close\r\n\r\n'),
    raw(
      'gzip body that is not gzip',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'foreign Host on /graphql (DNS rebinding)',
      `POST /graphql HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw('Host with a NUL escape', 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1%00evil\r\nConnection: close\r\n\r\n'),
  ];
}

/**
 * Placeholders the corpus runner replaces in header values: the id of an event of the signed-in user's
 * own call stream (a stream of another session than the anonymous one).
 */
export const USER_STREAM_EVENT_ID = '{{user-stream-event-id}}';

/** GET + Last-Event-ID (resuming a cut stream): malformed, unknown, huge, and another session's ids. */
function resumptionCases(): HostileCase[] {
  const uuid = '6f1c9a4e-1d2b-4c3d-8e9f-0a1b2c3d4e5f';
  const ids = [
    '',
    ' ',
    'not-an-event-id',
    `${uuid}_1`,
    `${uuid}_1-0`,
    `${uuid}_99999999999999999999`,
    `${uuid}_1-99999999999999999999`,
    `${uuid}_-1`,
    `${uuid}`,
    `_1-0`,
    `${uuid.toUpperCase()}_1-0`,
    `${uuid}_1-0_1-0`,
    '../../etc/passwd_1-0',
    "' OR 1=1 --",
    '\u00e9\u00ff',
    `${'a'.repeat(36)}_1-0`,
    `${uuid}_${'9'.repeat(4000)}`,
    'x'.repeat(8000),
    'x'.repeat(20000),
    USER_STREAM_EVENT_ID,
  ];
  const resume = (name: string, lastEventId: string, session: SessionRef | undefined): HttpCase => ({
    kind: 'http',
    category: 'resumption',
    name,
    method: 'GET',
    path: '/mcp',
    headers: {
      accept: 'text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
    session,
  });
  return [
    ...ids.map((id, i) => resume(`Last-Event-ID #${i} ${JSON.stringify(id.slice(0, 40))}`, id, 'anonymous')),
    ...ids.map((id, i) => resume(`Last-Event-ID #${i} on the user's session`, id, 'user')),
    resume('Last-Event-ID without a session', `${uuid}_1-0`, undefined),
    resume(
      "another session's stream, its owner's session id without the token",
      USER_STREAM_EVENT_ID,
      'user-id-anonymous',
    ),
  ];
}

export function generateHostileCorpus(tokens: CorpusTokens): HostileCase[] {
  return [
    ...stringCases(),
    ...paginationCases(),
    ...tokenCases(tokens),
    ...bodyCases(),
    ...mediaTypeCases(),
    ...sizeAndBombCases(),
    ...variableTypeCases(),
    ...getCases(),
    ...jsonRpcCases(),
    ...toolArgumentCases(),
    ...agentSafetyCases(tokens),
    ...sessionCases(),
    ...clientAnswerCases(),
    ...resumptionCases(),
    ...rawCases(),
    ...oversizedBodyCases(),
    ...routeSpellingCases(),
    ...schemaToolCases(),
  ];
}

/**
 * The schema tools (the corpus server runs MCP_SCHEMA_TOOLS=read), as the seed user: fragment bombs,
 * introspection abuse, huge and odd variables, aliases, mutations, and bad arguments; anonymously too.
 */
function schemaToolCases(): HostileCase[] {
  const execute = (name: string, args: unknown, session: SessionRef = 'user') =>
    mcpPost('schema tools', `executeGraphQL ${name} (${session})`, toolCall('executeGraphQL', args), {
      session,
    });
  const cases: HostileCase[] = [];
  for (const levels of [10, 24, 30]) {
    const bomb = `{ movie(id: "1") { ...F${levels} } }\n${doublingChain(levels, 'Movie', 'title')}`;
    cases.push(
      execute(`fragment bomb ${levels}`, { query: bomb }),
      mcpPost(
        'schema tools',
        `validateGraphQL fragment bomb ${levels}`,
        toolCall('validateGraphQL', { query: bomb }),
        {
          session: 'user',
        },
      ),
    );
  }
  cases.push(
    execute('introspection bomb', {
      query:
        '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
    }),
    execute('whole introspection', {
      query:
        '{ __schema { types { name description fields { name description args { name description } } } } }',
    }),
    execute('__type loop', {
      query: `{ ${repeat(50, (i) => `t${i}: __type(name: "Movie") { name fields { name } }`)} }`,
    }),
    execute('400 aliases', {
      query: `{ ${repeat(400, (i) => `a${i}: search(query: "a") { __typename }`)} }`,
    }),
    execute('16 aliased movies', { query: `{ ${repeat(16, (i) => `a${i}: movie(id: "1") { title }`)} }` }),
    execute('huge variables', {
      query: 'query ($q: String!) { search(query: $q) { __typename } }',
      variables: { q: 'y'.repeat(90_000) },
    }),
    execute('10,000 variables', {
      query: '{ __typename }',
      variables: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`v${i}`, i])),
    }),
    execute('variables of the wrong type', {
      query: 'query ($id: ID!) { movie(id: $id) { title } }',
      variables: { id: { a: [1] } },
    }),
    execute('variables not an object', { query: '{ __typename }', variables: [1, 2] }),
    execute('a mutation in read mode', {
      query: 'mutation { addToWatchlist(subject: { movieId: "3" }) { id } }',
    }),
    execute('200 logins', {
      query: `mutation { ${repeat(200, (i) => `a${i}: login(input: { username: "user", password: "nope${i}" }) { token }`)} }`,
    }),
    execute('a subscription', { query: 'subscription { movie }' }),
    execute('no operation named so', { query: '{ __typename }', operationName: 'Nope' }),
    execute('two operations, no name', { query: 'query A { __typename } query B { __typename }' }),
    execute('syntax error', { query: '{ movie(id: "1") { title ' }),
    execute('empty document', { query: '' }),
    execute('offset without a list', { query: '{ movie(id: "1") { title } }', offset: 5 }),
    execute('negative offset', { query: '{ search(query: "a") { __typename } }', offset: -1 }),
    execute('6,000 tokens', { query: `{ movie(id: "1") { ${repeat(6000, () => 'title')} } }` }),
    execute('nested 2,400 deep', {
      query: `{ moviesByIds(ids: ${'['.repeat(2400)}"1"${']'.repeat(2400)}) { id } }`,
    }),
    execute("another user's e-mail", { query: '{ movie(id: "1") { reviews { user { email role } } } }' }),
    execute('anonymous', { query: '{ movie(id: "1") { title } }' }, 'anonymous'),
    execute('unknown argument', { query: '{ __typename }', extra: true }),
    mcpPost('schema tools', 'searchSchema empty', toolCall('searchSchema', { query: '' }), {
      session: 'user',
    }),
    mcpPost(
      'schema tools',
      'searchSchema everything',
      toolCall('searchSchema', { query: repeat(40, (i) => `a${i} movie the`) }),
      {
        session: 'user',
      },
    ),
    mcpPost(
      'schema tools',
      'searchSchema punctuation',
      toolCall('searchSchema', { query: '%_\\\'"{}[]()' }),
      {
        session: 'user',
      },
    ),
    mcpPost('schema tools', 'searchSchema not a string', toolCall('searchSchema', { query: ['director'] }), {
      session: 'user',
    }),
  );
  return cases;
}

/**
 * Bodies over the limit as fetch-based clients send them (megabytes, the 413 must be readable before the
 * connection closes), and uploads over the limit that stall: the 413 comes at once and the connection is
 * cut within the lingering bounds, not after the request timeout.
 */
function oversizedBodyCases(): HostileCase[] {
  const megabytes = (n: number) => 'x'.repeat(n * 1024 * 1024);
  const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
  const stalled = (name: string, path: string, headers: string, body: string): RawCase => ({
    kind: 'raw',
    category: 'oversized bodies',
    name,
    bytes: `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n${body}`,
  });
  const mcpHeaders =
    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n';
  const chunk = 'y'.repeat(200 * 1024);
  return [
    graphqlPost('oversized bodies', '5 MB body', `{ search(query: "${megabytes(5)}") { __typename } }`),
    mcpPost('oversized bodies', '5 MB /mcp body in a session', toolCall('searchMovies', { q: megabytes(5) })),
    mcpPost(
      'oversized bodies',
      '5 MB /mcp body without a session',
      toolCall('searchMovies', { q: megabytes(5) }),
      {
        session: 'none',
      },
    ),
    {
      kind: 'http',
      category: 'oversized bodies',
      name: 'gzip bomb on /graphql (20 MB of zeros)',
      method: 'POST',
      path: '/graphql',
      headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' },
      body: bomb,
    },
    {
      kind: 'http',
      category: 'oversized bodies',
      name: 'gzip bomb on /mcp (20 MB of zeros)',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' },
      body: bomb,
      session: 'anonymous',
    },
    stalled(
      'a declared 50 MB /graphql upload that stalls after 1 KB',
      '/graphql',
      'Content-Type: application/json\r\nContent-Length: 52428800\r\n',
      'z'.repeat(1024),
    ),
    stalled(
      'a declared 50 MB /mcp upload that stalls after 1 KB',
      '/mcp',
      `${mcpHeaders}Content-Length: 52428800\r\n`,
      'z'.repeat(1024),
    ),
    stalled(
      'a chunked /graphql upload past the limit that never sends its last chunk',
      '/graphql',
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    ),
    stalled(
      'a chunked /mcp upload past the limit that never sends its last chunk',
      '/mcp',
      `${mcpHeaders}Transfer-Encoding: chunked\r\n`,
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    ),
  ];
}

/**
 * Other spellings of the routes (paths are exact: each is a 404, never served, held or refused as the
 * route it resembles), a movie resource id past the largest stored one, and floods of cheap requests
 * and refused documents (counted by the request limit; the corpus runs with limits off, so here they
 * only have to be answered cleanly).
 */
function routeSpellingCases(): HostileCase[] {
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
