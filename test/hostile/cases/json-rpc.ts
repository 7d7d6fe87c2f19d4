import { type HostileCase, mcpPost, type SessionRef, toolCall } from './shared.js';

export function jsonRpcCases(): HostileCase[] {
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
    [
      'resources/read a 50 KB URI',
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `moviedb://${'u'.repeat(50_000)}` } },
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

export function toolArgumentCases(): HostileCase[] {
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
