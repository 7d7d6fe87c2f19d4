import {
  doublingChain,
  graphqlPost,
  type HostileCase,
  JSON_HEADERS,
  mcpPost,
  nestedJson,
  repeat,
  toolCall,
} from './shared.js';

/** Bodies and documents that are too large or too deep, and documents built to be expensive. */
export function sizeAndBombCases(): HostileCase[] {
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
