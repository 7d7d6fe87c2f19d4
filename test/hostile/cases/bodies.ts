import { type HostileCase, JSON_HEADERS, mcpPost, nestedJson } from './shared.js';

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

export function bodyCases(): HostileCase[] {
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

export function mediaTypeCases(): HostileCase[] {
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
