/**
 * GRAPHQL_JIT: an operation compiled by graphql-jit answers exactly what graphql-js answers (status,
 * data, errors with their messages, locations, paths and classifications), for reads, writes and every
 * kind of refusal; the default compiles curated operations on their first run and a client's document
 * on its second, only when it is small enough, logging which engine runs each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileHeavyDocument, HEAVY_FIELDS, HEAVY_OPERATION } from '../helpers/compile-heavy-document.js';
import { captureLogs } from '../helpers/log-capture.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** A @oneOf key given by a nullable variable: refused alike when the variable is absent or null. */
const ONE_OF_BY_VARIABLE = 'mutation ($m: ID) { addToWatchlist(subject: { movieId: $m }) { id } }';
const NESTED_ONE_OF_BY_VARIABLE =
  'mutation ($m: ID) { createReview(input: { subject: { movieId: $m }, score: 5 }) { id } }';

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
  { name: 'a @oneOf key by an absent variable', query: ONE_OF_BY_VARIABLE, variables: {}, signedIn: true },
  { name: 'a @oneOf key by a null variable', query: ONE_OF_BY_VARIABLE, variables: { m: null } },
  {
    name: 'a nested @oneOf key by a null variable',
    query: NESTED_ONE_OF_BY_VARIABLE,
    variables: { m: null },
    signedIn: true,
  },
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

  it('by default never compiles a compile-heavy document however often a client sends it, while curated tools run compiled from their first call', async () => {
    const server = await startTestServer(dialect, {
      env: {
        GRAPHQL_JIT: 'repeated',
        GRAPHQL_JIT_FIELDS_PER_MINUTE: '1000',
        LOG_LEVEL: 'debug',
        RESULT_CACHE_MB: '0',
      },
      logger: logs.logger,
    });
    try {
      // This server's lines only: the log is shared by the tests of this file.
      const earlier = logs.lines().length;
      const lines = () =>
        logs
          .lines()
          .slice(earlier)
          .filter((line) => line.msg === 'operation compiled');
      const heavy = compileHeavyDocument();
      for (let run = 0; run < 4; run++) {
        const answer = await server.graphql(heavy);
        expect(answer.status).toBe(200);
        expect(answer.body.errors).toBeUndefined();
      }
      expect(lines().filter((line) => line.operation === HEAVY_OPERATION)).toMatchObject([
        { engine: 'graphql-js', origin: 'client', fields: HEAVY_FIELDS, cachedFields: 0 },
      ]);

      const client = await connectClient(server.url);
      try {
        const result = await callTool(client, 'getMovie', { id: '1' });
        expect(result.isError).toBe(false);
      } finally {
        await client.close();
      }
      expect(lines().filter((line) => line.operation === 'GetMovie')).toMatchObject([
        { engine: 'graphql-jit', origin: 'curated' },
      ]);
      expect(lines().some((line) => line.engine === 'graphql-jit' && line.origin === 'client')).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('a small client document is compiled only while its principal has compile budget left', async () => {
    const server = await startTestServer(dialect, {
      // Room for the sign-in's 2 fields and one of the 3-field documents below per minute, per principal.
      env: {
        GRAPHQL_JIT: 'always',
        GRAPHQL_JIT_FIELDS_PER_MINUTE: '6',
        LOG_LEVEL: 'debug',
        RESULT_CACHE_MB: '0',
      },
      logger: logs.logger,
    });
    try {
      const lines = (operation: string) =>
        logs.lines().filter((line) => line.msg === 'operation compiled' && line.operation === operation);
      const token = await server.login('user', 'user123');
      await server.graphql('query First { movie(id: "3") { id title } }');
      await server.graphql('query Second { movie(id: "4") { id title } }');
      await server.graphql('query Third { movie(id: "5") { id title } }', undefined, token);
      expect(lines('First')).toMatchObject([{ engine: 'graphql-jit', origin: 'client', fields: 3 }]);
      expect(lines('Second')).toMatchObject([{ engine: 'graphql-js', reason: 'over the compile budget' }]);
      // A signed-in user spends a budget of their own.
      expect(lines('Third')).toMatchObject([{ engine: 'graphql-jit', origin: 'client' }]);
    } finally {
      await server.stop();
    }
  });

  it.each([
    ['absent', {}],
    ['null', { m: null }],
  ])(
    'a @oneOf key given by a %s nullable variable answers the same BAD_REQUEST naming it, on every run, anonymous or signed in',
    async (state, variables) => {
      const server = await startTestServer(dialect, {
        env: { GRAPHQL_JIT: 'repeated', RESULT_CACHE_MB: '0' },
        logger: logs.logger,
      });
      const earlier = logs.lines().length;
      try {
        const token = await server.login('user', 'user123');
        const is = state === 'null' ? 'is null' : 'was not given';
        for (const [query, field] of [
          [ONE_OF_BY_VARIABLE, 'subject.movieId'],
          [NESTED_ONE_OF_BY_VARIABLE, 'input.subject.movieId'],
        ] as const) {
          for (const viewer of [undefined, token]) {
            for (let run = 0; run < 3; run++) {
              const answer = await server.graphql(query, variables, viewer);
              expect(answer.body).toEqual({
                errors: [
                  {
                    message: `${field} takes the variable "$m", which ${is}: the @oneOf input ${field.includes('input') ? 'ReviewSubjectInput' : 'WatchlistSubjectInput'} needs exactly one key with a value (movieId or tvShowId)`,
                    locations: [expect.any(Object)],
                    extensions: { classification: 'BAD_REQUEST', field },
                  },
                ],
              });
            }
          }
        }
        // Given a value, the same document adds the movie.
        const added = await server.graphql(ONE_OF_BY_VARIABLE, { m: '11' }, token);
        expect(added.body.errors).toBeUndefined();
        expect(
          logs
            .lines()
            .slice(earlier)
            .filter((line) => Number(line.level) >= 50),
        ).toEqual([]);
      } finally {
        await server.stop();
      }
    },
  );
});
