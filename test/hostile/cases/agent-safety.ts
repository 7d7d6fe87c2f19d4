import {
  type CorpusTokens,
  graphqlPost,
  HOSTILE_STRINGS,
  type HostileCase,
  mcpPost,
  nextRpcId,
  toolCall,
} from './shared.js';

/**
 * The agent-facing surfaces (docs/mcp.md): idempotency keys (tool argument, `_meta`, the /graphql header), confirmation
 * tokens and 2026-07-28 confirmation rounds (inputResponses, requestState), offsets, resources, prompts
 * and completions.
 */
export function agentSafetyCases(tokens: CorpusTokens): HostileCase[] {
  const cases: HostileCase[] = [];
  const add = (
    category: string,
    name: string,
    message: unknown,
    options: Parameters<typeof mcpPost>[3] = {},
  ) => cases.push(mcpPost(category, name, message, options));
  const request = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: nextRpcId(), method, params });
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
        id: nextRpcId(),
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
  add('resources', 'resources/read no params', { jsonrpc: '2.0', id: nextRpcId(), method: 'resources/read' });

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
