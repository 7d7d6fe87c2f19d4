/**
 * Floods against the built-in authorization server: registrations past the address's limit, a registry
 * at its cap, oversized registrations, and password guessing on the sign-in page (the login limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagesBrowser, hiddenFields, pkcePair } from '../helpers/oauth-browser.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const CALLBACK = 'http://127.0.0.1:43210/callback';

describe.each(dialects)('registration floods and sign-in guessing (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: { MCP_AUTH: 'required', REGISTRATIONS_PER_ADDRESS: '3', LOGIN_FAILURES_PER_ADDRESS: '2' },
    });
  });
  afterAll(() => server.stop());

  const registerOne = () =>
    fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
    });

  it('an address past the registration limit is answered 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await registerOne();
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    expect(await server.count('oauth_clients')).toBe(3);
  });

  it('the sign-in page counts failures against the login limits and answers 429 on the page', async () => {
    // Registered directly: this address spent its registrations in the test above.
    const now = new Date().toISOString();
    const clientId = 'pre-registered';
    await server.store.handle.db
      .insertInto('oauth_clients')
      .values({
        client_id: clientId,
        client_json: JSON.stringify({
          client_id: clientId,
          redirect_uris: [CALLBACK],
          token_endpoint_auth_method: 'none',
        }),
        created_at: now,
      })
      .execute();
    const browser = new PagesBrowser();
    const url = new URL(`${server.url}/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }).toString();
    const fields = hiddenFields((await browser.get(url.href)).html);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (
          await browser.post(`${server.url}/oauth/sign-in`, {
            ...fields,
            username: 'user',
            password: 'wrong',
          })
        ).status,
      );
    expect(statuses).toEqual([400, 400, 429]);
    const refused = await browser.post(`${server.url}/oauth/sign-in`, {
      ...fields,
      username: 'user',
      password: 'user123',
    });
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many failed sign-in attempts');
  });
});

describe.each(dialects)('the client registry cap (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { env: { MCP_AUTH: 'required' } });
  });
  afterAll(() => server.stop());

  const registerOne = () =>
    fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
    });

  it('at 1000 clients registration is refused while every unused one is young; then the oldest unused one gives way', async () => {
    const fill = (createdAt: string) =>
      Array.from({ length: 999 }, (_, i) => ({
        client_id: `filler-${i}`,
        client_json: JSON.stringify({ client_id: `filler-${i}`, redirect_uris: [CALLBACK] }),
        created_at: createdAt,
      }));
    await server.store.handle.db.insertInto('oauth_clients').values(fill(new Date().toISOString())).execute();
    expect((await registerOne()).status).toBe(201);
    const full = await registerOne();
    expect(full.status).toBe(400);
    expect(((await full.json()) as { error: string }).error).toBe('too_many_requests');
    expect(await server.count('oauth_clients')).toBe(1000);

    await server.store.handle.db
      .updateTable('oauth_clients')
      .set({ created_at: new Date(Date.now() - 11 * 60 * 1000).toISOString() })
      .where('client_id', '=', 'filler-0')
      .execute();
    expect((await registerOne()).status).toBe(201);
    expect(await server.count('oauth_clients')).toBe(1000);
    const oldest = await server.store.handle.db
      .selectFrom('oauth_clients')
      .select('client_id')
      .where('client_id', '=', 'filler-0')
      .executeTakeFirst();
    expect(oldest).toBeUndefined();
    expect((await registerOne()).status).toBe(400);
  });

  it('a registration with too many redirect URIs, or oversized metadata, is refused', async () => {
    const many = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
    for (const body of [
      { redirect_uris: many },
      { redirect_uris: [CALLBACK], client_name: 'x'.repeat(9000) },
    ]) {
      const response = await fetch(`${server.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, token_endpoint_auth_method: 'none' }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
  });
});
