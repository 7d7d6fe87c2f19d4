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

  it('a failing non-null root field (summarizeMovieReviews) makes data null', async () => {
    await sql`drop table reviews`.execute(server.store.handle.db);
    const response = await server.graphql('{ summarizeMovieReviews(movieId: "1") { reviewCount } }');
    expect(response.body.data).toBeNull();
    expect(classificationOf(response)).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(response.body)).not.toMatch(LEAKS);
  });
});
