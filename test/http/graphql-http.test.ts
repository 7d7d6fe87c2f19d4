import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer('sqlite', {
    env: { BODY_LIMIT_BYTES: '4096', GRAPHQL_MAX_DEPTH: '6', GRAPHQL_MAX_COST: '5000' },
  });
});
afterAll(() => server.stop());

describe('GraphQL over HTTP audit suite (graphql-http serverAudits)', () => {
  // Every audit, MUST and SHOULD alike, must pass: a warning is a failure here.
  for (const audit of serverAudits({ url: () => `${server.url}/graphql`, fetchFn: fetch })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
    });
  }
});

describe('/graphql transport', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body,
    });

  it('GET runs a query and answers application/graphql-response+json when asked', async () => {
    const response = await fetch(
      `${server.url}/graphql?query=${encodeURIComponent('{ movie(id: "1") { title } }')}`,
      {
        headers: { accept: 'application/graphql-response+json' },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    expect(await response.json()).toEqual({ data: { movie: { title: 'The Shawshank Redemption' } } });
  });

  it('GET refuses a mutation with 405 and Allow: POST', async () => {
    const query = encodeURIComponent(
      'mutation { login(input: { username: "user", password: "user123" }) { token } }',
    );
    const response = await fetch(`${server.url}/graphql?query=${query}`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('a malformed JSON body is a 400 with a JSON error body, never HTML', async () => {
    const response = await post('{"query": ');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/json/);
    const body = (await response.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toMatch(/JSON/i);
  });

  it('a body over the limit is a 413 with a JSON BAD_REQUEST', async () => {
    const response = await post(
      JSON.stringify({ query: `{ movie(id: "1") { title } } #${'x'.repeat(8000)}` }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      errors: [{ extensions: { classification: 'BAD_REQUEST' } }],
    });
  });

  it('a query nested deeper than the limit is rejected before execution with a clear message', async () => {
    const deep =
      '{ movie(id: "1") { cast { person { movieCastCredits { movie { cast { person { name } } } } } } } }';
    const response = await post(JSON.stringify({ query: deep }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      errors: { message: string; extensions: Record<string, unknown> }[];
    };
    expect(body.errors[0]!.message).toMatch(/nested 8 levels deep; the limit is 6/);
    expect(body.errors[0]!.extensions).toMatchObject({ classification: 'BAD_REQUEST', limit: 'depth' });
  });

  it('a query whose estimated cost is over the limit is rejected with a clear message', async () => {
    const wide = '{ movies(size: 100) { content { directors { directedMovies { title } } } } }';
    const response = await post(JSON.stringify({ query: wide }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      errors: { message: string; extensions: Record<string, unknown> }[];
    };
    expect(body.errors[0]!.message).toMatch(/estimated cost of \d+; the limit is 5000/);
    expect(body.errors[0]!.extensions).toMatchObject({ limit: 'cost' });
  });

  it('syntax and validation errors are BAD_REQUEST', async () => {
    for (const query of ['{ movie(id: "1") { title ', '{ movie(id: "1") { nope } }']) {
      const response = await post(JSON.stringify({ query }));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        errors: [{ extensions: { classification: 'BAD_REQUEST' } }],
      });
    }
  });

  it('an unknown route is a JSON 404, and every response carries an X-Request-Id', async () => {
    const response = await fetch(`${server.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      errors: [{ extensions: { classification: 'NOT_FOUND' } }],
    });
    expect(response.headers.get('x-request-id')).toMatch(/.+/);
    const echoed = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-123');
  });
});

describe('GraphiQL and health', () => {
  it('a browser GET /graphql gets GraphiQL from our own assets, with the headers editor', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    // Another site cannot frame it (clickjacking).
    expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset.startsWith('/')).toBe(true);
      const file = await fetch(`${server.url}${asset}`);
      expect(file.status, asset).toBe(200);
      expect((await file.text()).length).toBeGreaterThan(100);
    }
    const init = await (await fetch(`${server.url}/graphiql/init.js`)).text();
    expect(init).toContain('isHeadersEditorEnabled: true');
  });

  it('/healthz is ok and /readyz reports the database', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
  });
});
