import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../helpers/log-capture.js';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** What must never reach a client (CWE-209). */
const LEAKS =
  /sqlite|postgres|select |from |relation|no such table|at .*\.(ts|js)|node_modules|kysely|stack/i;

describe.each(dialects)('unexpected failures on %s', (dialect) => {
  let server: TestServer;
  const logs = captureLogs();
  beforeAll(async () => {
    server = await startTestServer(dialect, { logger: logs.logger });
    // Break the storage under one field: the resolver then fails in a way nobody planned for.
    await sql`drop table episodes`.execute(server.store.handle.db);
  });
  afterAll(() => server.stop());

  it('are masked as INTERNAL_ERROR with a reference; the full error is logged under it with the request id', async () => {
    const token = await server.login('user', 'user123');
    const response = await server.graphql<{ tvShow: unknown }>(
      '{ tvShow(id: "1") { title episodes { title } } }',
      undefined,
      token,
    );
    expect(response.status).toBe(200);
    // episodes is non-null, so the failure nulls its nearest nullable parent, tvShow.
    expect(response.body.data).toEqual({ tvShow: null });
    const error = response.body.errors![0]!;
    expect(error.extensions?.classification).toBe('INTERNAL_ERROR');
    expect(error.path).toEqual(['tvShow', 'episodes']);
    const reference = error.extensions?.reference as string;
    expect(reference).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.message).toBe(`An unexpected error occurred. Reference: ${reference}`);
    expect(JSON.stringify(response.body)).not.toMatch(LEAKS);

    const logged = logs.lines().find((line) => line.reference === reference);
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toMatch(/episodes/);
    expect(logged!.requestId).toEqual(expect.any(String));
    expect(response.headers.get('x-request-id')).toBe(logged!.requestId);
    // The token was sent but is never written to the logs.
    expect(logs.text()).not.toContain(token);
  });

  it('a GraphQL error raised during execution that is not ours (an enum value the schema cannot serialize) is INTERNAL_ERROR with a reference, and logged', async () => {
    // Bad data written behind the API's back: the column holds a genre the schema does not know.
    await sql`update movies set genre = ${'NOPE'} where id = 3`.execute(server.store.handle.db);
    const response = await server.graphql<{ movie: { title: string; genre: unknown } }>(
      '{ movie(id: "3") { title genre } }',
    );
    expect(response.status).toBe(200);
    // genre is nullable: the field alone becomes null, the rest of the movie is still answered.
    expect(response.body.data?.movie).toMatchObject({ genre: null, title: expect.any(String) });
    const error = response.body.errors![0]!;
    expect(error.path).toEqual(['movie', 'genre']);
    expect(error.extensions?.classification).toBe('INTERNAL_ERROR');
    const reference = error.extensions?.reference as string;
    expect(error.message).toBe(`An unexpected error occurred. Reference: ${reference}`);
    expect(JSON.stringify(response.body)).not.toMatch(/NOPE|Enum|Genre/);
    const logged = logs.lines().find((line) => line.reference === reference);
    expect(JSON.stringify(logged)).toMatch(/cannot represent value/);
  });

  // PostgreSQL's integer column cannot hold the bad value at all; SQLite's can.
  it.skipIf(dialect === 'postgres')(
    'a non-null field holding a value beyond Int (bad data) is INTERNAL_ERROR, never BAD_REQUEST',
    async () => {
      await sql`update movies set release_year = ${2 ** 40} where id = 4`.execute(server.store.handle.db);
      const response = await server.graphql<{ movie: unknown }>('{ movie(id: "4") { title releaseYear } }');
      // releaseYear is non-null: the failure nulls the movie.
      expect(response.body.data).toEqual({ movie: null });
      expect(classificationOf(response)).toBe('INTERNAL_ERROR');
      expect(response.body.errors![0]!.extensions?.reference).toEqual(expect.any(String));
    },
  );

  it('request errors stay BAD_REQUEST: syntax, validation and variable coercion', async () => {
    expect(classificationOf(await server.graphql('{ movie(id: "1") { title '))).toBe('BAD_REQUEST');
    expect(classificationOf(await server.graphql('{ movie(id: "1") { nope } }'))).toBe('BAD_REQUEST');
    const coercion = await server.graphql(
      'query ($g: Genre) { movies(filter: { genre: $g }) { totalElements } }',
      {
        g: 'NOPE',
      },
    );
    expect(classificationOf(coercion)).toBe('BAD_REQUEST');
    expect(coercion.body.errors![0]!.message).toMatch(/NOPE/);
  });

  it('a failing non-null root field (summarizeMovieReviews) makes data null', async () => {
    await sql`drop table reviews`.execute(server.store.handle.db);
    const response = await server.graphql('{ summarizeMovieReviews(movieId: "1") { reviewCount } }');
    expect(response.body.data).toBeNull();
    expect(classificationOf(response)).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(response.body)).not.toMatch(LEAKS);
  });
});
