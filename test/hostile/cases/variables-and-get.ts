import { doublingChain, graphqlGet, graphqlPost, type HostileCase, JSON_HEADERS, repeat } from './shared.js';

export function variableTypeCases(): HostileCase[] {
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

export function getCases(): HostileCase[] {
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
