/**
 * Every error shape docs/errors.md documents, through the front door: each refusal of /graphql, before
 * execution or in it, is a JSON body whose errors carry extensions.classification; and that page's error
 * tables name exactly the classifications of the registry in src/errors.ts, with the same retryability.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLASSIFICATIONS, RETRYABLE } from '../../src/errors.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

interface ErrorBody {
  errors: { message: string; extensions: { classification: string } }[];
}

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get('content-type')).toMatch(/json/);
  const body = (await response.json()) as ErrorBody;
  expect(body.errors.length).toBeGreaterThan(0);
  for (const error of body.errors) expect(CLASSIFICATIONS).toContain(error.extensions.classification);
  return body;
}

describe.each(dialects)('documented error shapes on /graphql (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { env: { BODY_LIMIT_BYTES: '4096' } });
  });
  afterAll(() => server.stop());

  it('a mutation over GET is a 405 with Allow: POST and a classified BAD_REQUEST saying to use POST', async () => {
    const query = encodeURIComponent(
      'mutation { login(input: { username: "user", password: "user123" }) { token } }',
    );
    const response = await fetch(`${server.url}/graphql?query=${query}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = await errorBody(response);
    expect(body.errors[0]).toMatchObject({
      message: 'Cannot perform mutations over GET: send mutations with POST',
      extensions: { classification: 'BAD_REQUEST' },
    });
  });

  it('a text/plain body is a 415 with a classified BAD_REQUEST naming the accepted type', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: '{ movie(id: "1") { title } }',
    });
    expect(response.status).toBe(415);
    const body = await errorBody(response);
    expect(body.errors[0]!.extensions.classification).toBe('BAD_REQUEST');
    expect(body.errors[0]!.message).toMatch(/^Unsupported Media Type: .*application\/json/);
  });

  it('another method is a 405 with Allow: GET, POST and a classified body', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'PUT',
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect((await errorBody(response)).errors[0]!.message).toMatch(/Method PUT is not allowed/);
  });

  it('an unacceptable Accept is a 406 with a classified body naming the acceptable types', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/xml' },
      body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
    });
    expect(response.status).toBe(406);
    expect((await errorBody(response)).errors[0]!.message).toMatch(/application\/graphql-response\+json/);
  });

  it('an unknown route is a 404 NOT_FOUND, an over-limit body a 413 BAD_REQUEST, a bad token a 401 UNAUTHORIZED', async () => {
    const notFound = await fetch(`${server.url}/nowhere`);
    expect(notFound.status).toBe(404);
    expect((await errorBody(notFound)).errors[0]!.extensions.classification).toBe('NOT_FOUND');

    const tooLarge = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ movie(id: "1") { title } } #${'x'.repeat(8000)}` }),
    });
    expect(tooLarge.status).toBe(413);
    expect((await errorBody(tooLarge)).errors[0]!.extensions.classification).toBe('BAD_REQUEST');

    const badToken = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-token' },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    expect(badToken.status).toBe(401);
    expect((await errorBody(badToken)).errors[0]!.extensions.classification).toBe('UNAUTHORIZED');
  });

  it('the documented examples: a duplicate is BAD_REQUEST, an unknown id NOT_FOUND, anonymous writes UNAUTHORIZED', async () => {
    const token = await server.login('user', 'user123');
    const add = 'mutation ($id: ID!) { addToWatchlist(subject: { movieId: $id }) { id } }';
    await server.graphql(add, { id: '12' }, token);
    const again = await server.graphql(add, { id: '12' }, token);
    expect(again.body.errors?.[0]).toMatchObject({
      message: 'This movie is already in your watch list',
      extensions: { classification: 'BAD_REQUEST' },
    });
    const missing = await server.graphql(add, { id: '999' }, token);
    expect(missing.body.errors?.[0]).toMatchObject({
      message: 'Entity Movie not found for id: 999',
      extensions: { classification: 'NOT_FOUND', entityType: 'Movie' },
    });
    const anonymous = await server.graphql(add, { id: '12' });
    expect(anonymous.body.errors?.[0]).toMatchObject({
      message: 'Sign in to use addToWatchlist',
      extensions: { classification: 'UNAUTHORIZED' },
    });
  });
});

describe('the error tables of docs/errors.md and the registry in src/errors.ts', () => {
  const page = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
  const section = (heading: string) =>
    page.split(new RegExp(`^${heading}$`, 'm'))[1]?.split(/^#{2,3} /m)[0] ?? '';
  const firstColumn = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()));

  it('the Classifications table names every classification of the registry, and no other', () => {
    const named = firstColumn(section('## Classifications')).flatMap((cells) =>
      [...(cells[1] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]),
    );
    expect([...named].sort()).toEqual([...CLASSIFICATIONS].sort());
  });

  it('the table for agents gives each classification the retryability of the registry', () => {
    const rows = firstColumn(section('## Tool results, as an agent reads them'));
    const table = Object.fromEntries(rows.map((cells) => [cells[1]!.replace(/`/g, ''), cells[2] === 'yes']));
    expect(Object.keys(table).sort()).toEqual([...CLASSIFICATIONS].sort());
    for (const [classification, retryable] of Object.entries(table)) {
      expect(CLASSIFICATIONS, `unknown classification ${classification} in docs/errors.md`).toContain(
        classification,
      );
      expect(retryable, classification).toBe(RETRYABLE[classification as keyof typeof RETRYABLE]);
    }
  });
});
