/**
 * GRAPHQL_JIT: an operation compiled by graphql-jit answers exactly what graphql-js answers (status,
 * data, errors with their messages, locations, paths and classifications), for reads, writes and every
 * kind of refusal; and the default compiles a document on its second run, logging which engine runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** Each case runs twice on each server: graphql-js first, then (on the `always` server) compiled. */
const CASES: { name: string; query: string; variables?: Record<string, unknown>; signedIn?: boolean }[] = [
  {
    name: 'recommendations with directors',
    query:
      'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id title rating directors { name } } }',
    variables: { mood: 'HORROR' },
  },
  {
    name: 'a movie with its cast, review count and a DateTime',
    query:
      '{ movie(id: "1") { id title reviewCount cast { characterName person { name } } reviews { createdAt } } }',
  },
  {
    name: 'a union and an interface with __typename and inline fragments',
    query:
      '{ search(query: "the") { __typename ... on Movie { title } ... on Person { name } ... on TvShow { title } } }',
  },
  {
    name: 'NOT_FOUND with its path and location',
    query: '{ a: movie(id: "1") { id } b: movie(id: "999") { id } }',
  },
  {
    name: 'unknown ids: null entries and one NOT_FOUND',
    query: '{ moviesByIds(ids: ["1", "999"]) { id title } }',
  },
  { name: 'a bad id', query: '{ movie(id: "x") { id } }' },
  {
    name: 'a bad enum variable',
    query: 'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id } }',
    variables: { mood: 'GLUM' },
  },
  { name: 'a missing variable', query: 'query ($id: ID!) { movie(id: $id) { id } }', variables: {} },
  {
    name: 'a wrong variable type',
    query: 'query ($size: Int) { movies(size: $size) { totalElements } }',
    variables: { size: 'many' },
  },
  { name: 'a @range violation', query: '{ movies(size: 1000) { totalElements } }' },
  { name: 'UNAUTHORIZED for an anonymous watch list', query: '{ watchlist { id } }' },
  {
    name: 'the watch list',
    query: '{ watchlist { id status content { __typename title } } }',
    signedIn: true,
  },
  {
    name: 'a @oneOf variable with both keys',
    query: 'mutation ($s: WatchlistSubjectInput!) { addToWatchlist(subject: $s) { id } }',
    variables: { s: { movieId: '1', tvShowId: '1' } },
    signedIn: true,
  },
  {
    name: 'a write that finds nothing',
    query: 'mutation { setWatchStatus(itemId: "999999", status: WATCHED) { id status } }',
    signedIn: true,
  },
  { name: 'introspection', query: '{ __type(name: "Mood") { enumValues { name } } }' },
];

/** What a client sees, without what differs per call (error references, request ids). */
function comparable(response: { status: number; body: unknown }) {
  return JSON.parse(
    JSON.stringify(response).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ref'),
  ) as unknown;
}

describe.each(dialects)('compiled execution on %s', (dialect) => {
  let compiled: TestServer;
  let interpreted: TestServer;
  const logs = captureLogs('debug');
  beforeAll(async () => {
    compiled = await startTestServer(dialect, { env: { GRAPHQL_JIT: 'always', RESULT_CACHE_MB: '0' } });
    interpreted = await startTestServer(dialect, { env: { GRAPHQL_JIT: 'off', RESULT_CACHE_MB: '0' } });
  });
  afterAll(async () => {
    await compiled?.stop();
    await interpreted?.stop();
  });

  it.each(CASES)('$name: the compiled operation answers as graphql-js does', async (testCase) => {
    const tokenOf = async (server: TestServer) =>
      testCase.signedIn ? server.login('user', 'user123') : undefined;
    const expected = comparable(
      await interpreted.graphql(testCase.query, testCase.variables, await tokenOf(interpreted)),
    );
    const token = await tokenOf(compiled);
    for (let run = 0; run < 2; run++) {
      expect(comparable(await compiled.graphql(testCase.query, testCase.variables, token))).toEqual(expected);
    }
  });

  it('by default compiles a document on its second run and logs which engine runs each', async () => {
    const server = await startTestServer(dialect, {
      env: { GRAPHQL_JIT: 'repeated', LOG_LEVEL: 'debug', RESULT_CACHE_MB: '0' },
      logger: logs.logger,
    });
    try {
      const compiledLines = () => logs.lines().filter((line) => line.msg === 'operation compiled');
      const query = 'query Repeated { movie(id: "2") { title } }';
      const first = await server.graphql(query);
      expect(compiledLines().filter((line) => line.operation === 'Repeated')).toEqual([]);
      const second = await server.graphql(query);
      expect(second.body).toEqual(first.body);
      expect(compiledLines().filter((line) => line.operation === 'Repeated')).toMatchObject([
        { engine: 'graphql-jit' },
      ]);
      const introspection = 'query Types { __schema { queryType { name } } }';
      await server.graphql(introspection);
      await server.graphql(introspection);
      expect(compiledLines().filter((line) => line.operation === 'Types')).toMatchObject([
        { engine: 'graphql-js', reason: 'introspection' },
      ]);
    } finally {
      await server.stop();
    }
  });
});
