/**
 * The built-in authorization server's forms and error answers under clients that push on them, over
 * real HTTP: correct sign-ins racing each other from one address, a `state` too long to carry through
 * the forms, a consent form posted again, malformed bodies and parameters on every OAuth route (answered
 * as RFC 6749 `{error, error_description}`, in words), and the wrong method on the pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagesBrowser, hiddenFields, pkcePair } from '../helpers/oauth-browser.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const CALLBACK = 'http://127.0.0.1:43210/callback';

describe.each(dialects)('the authorization server’s forms and errors (%s)', (dialect) => {
  let server: TestServer;
  let user: { username: string; password: string };
  let clientId: string;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: { MCP_AUTH: 'required', LOGIN_FAILURES_PER_ADDRESS: '2', REGISTRATIONS_PER_ADDRESS: '100' },
    });
    user = { username: (await server.newUser()).username, password: 'secret123' };
    clientId = (await register({ client_name: 'forms', redirect_uris: [CALLBACK] })).body.client_id!;
  });
  afterAll(() => server.stop());

  async function register(metadata: unknown) {
    const response = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...(metadata as object) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  function authorizeUrl(params: Record<string, string> = {}) {
    const url = new URL(`${server.url}/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      ...params,
    }).toString();
    return url.href;
  }

  /** Opens the sign-in page in a fresh browser and posts the credentials: the consent page's answer. */
  async function signIn(credentials = user) {
    const browser = new PagesBrowser();
    const page = await browser.get(authorizeUrl());
    const consent = await browser.post(`${server.url}/oauth/sign-in`, {
      ...hiddenFields(page.html),
      ...credentials,
    });
    return { browser, consent };
  }

  const expectOAuthError = async (response: Response, status: number, error: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe(error);
    // Words, not a validator's dump of its issues.
    expect(body.error_description).not.toMatch(/^\s*\[|"code"|"path"|ZodError|Invalid input/);
    return body.error_description as string;
  };

  it('correct sign-ins racing from one address past its failure limit leave it able to sign in', async () => {
    const raced = await Promise.all(Array.from({ length: 12 }, () => signIn()));
    const statuses = raced.map(({ consent }) => consent.status);
    // They overlapped (some were refused while others were checked), and some got through.
    expect(statuses).toContain(429);
    expect(statuses).toContain(200);
    expect((await signIn()).consent.status).toBe(200);
  });

  it('a state of 2048 characters goes through sign-in and consent; a longer one is refused at once', async () => {
    const state = 'S'.repeat(1999) + '~!*()_- 0123456789abcdefghijklmnopqrstuvwxyzABCDE';
    expect(state).toHaveLength(2048);
    const { location } = await new PagesBrowser().signInAndDecide(authorizeUrl({ state }), user);
    expect(new URL(location).searchParams.get('state')).toBe(state);
    expect(new URL(location).searchParams.get('code')).toBeTruthy();

    const refused = await fetch(authorizeUrl({ state: 'x'.repeat(6000) }), { redirect: 'manual' });
    expect(refused.status).toBe(302);
    const params = new URL(refused.headers.get('location')!).searchParams;
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toMatch(/state.*2048/);

    // A request whose sealed form would not fit the pages (a client named at the metadata's bound) too.
    const { body: named } = await register({ client_name: 'é'.repeat(7000), redirect_uris: [CALLBACK] });
    const tooLarge = await fetch(authorizeUrl({ client_id: named.client_id!, state: 'short' }), {
      redirect: 'manual',
    });
    expect(tooLarge.status).toBe(302);
    const refusal = new URL(tooLarge.headers.get('location')!).searchParams;
    expect([refusal.get('error'), refusal.get('state')]).toEqual(['invalid_request', 'short']);
    expect(refusal.get('error_description')).toMatch(/too large to carry through sign-in/);
  });

  it('a consent form posted again redirects with the same code, never a second one; once the code is spent it is refused', async () => {
    const { browser, consent } = await signIn();
    const form = { ...hiddenFields(consent.html), decision: 'approve' };
    const first = await browser.post(`${server.url}/oauth/consent`, form);
    const again = await browser.post(`${server.url}/oauth/consent`, form);
    expect([first.status, again.status]).toEqual([303, 303]);
    const code = new URL(first.location!).searchParams.get('code');
    expect(new URL(again.location!).searchParams.get('code')).toBe(code);

    const codes = () => server.count('oauth_codes', `client_id = '${clientId}'`);
    const before = await codes();
    const spent = await server.store.handle.db
      .updateTable('oauth_codes')
      .set({ used_at: new Date().toISOString() })
      .where('used_at', 'is', null)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    expect(Number(spent.numUpdatedRows)).toBeGreaterThan(0);
    const replayed = await browser.post(`${server.url}/oauth/consent`, form);
    expect(replayed.status).toBe(400);
    expect(replayed.location).toBeUndefined();
    expect(replayed.html).toContain('already');
    expect(await codes()).toBe(before);
  });

  it('a malformed or oversized body is an OAuth error on every route, never the API’s error shape', async () => {
    const post = (path: string, contentType: string, body: string) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    expect(
      await expectOAuthError(await post('/register', 'application/json', '{nope'), 400, 'invalid_request'),
    ).toBe('The request body is not valid JSON');
    await expectOAuthError(
      await post('/register', 'application/json', JSON.stringify({ x: 'x'.repeat(200_000) })),
      413,
      'invalid_request',
    );
    for (const path of ['/token', '/revoke', '/oauth/sign-in', '/oauth/consent'])
      await expectOAuthError(
        await post(path, 'application/x-www-form-urlencoded; charset=koi8-r', 'a=b'),
        415,
        'invalid_request',
      );
    await expectOAuthError(
      await post('/oauth/sign-in', 'application/x-www-form-urlencoded', `a=${'x'.repeat(40_000)}`),
      413,
      'invalid_request',
    );
    const manyParameters = Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&');
    for (const path of ['/token', '/revoke', '/oauth/sign-in', '/oauth/consent'])
      expect(
        await expectOAuthError(
          await post(path, 'application/x-www-form-urlencoded', manyParameters),
          413,
          'invalid_request',
        ),
        path,
      ).toBe('The request has too many parameters (at most 1000)');
  });

  it('a missing or mistyped parameter is described in words that name it', async () => {
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    expect(
      await expectOAuthError(
        await form('/token', { grant_type: 'authorization_code' }),
        400,
        'invalid_request',
      ),
    ).toBe('Missing parameter "client_id"');
    expect(
      await expectOAuthError(await form('/token', { client_id: clientId }), 400, 'invalid_request'),
    ).toMatch(/"grant_type"/);
    expect(
      await expectOAuthError(await form('/revoke', { client_id: clientId }), 400, 'invalid_request'),
    ).toMatch(/"token"/);
    expect(
      await expectOAuthError(
        await fetch(`${server.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: 5 }),
        }),
        400,
        'invalid_client_metadata',
      ),
    ).toBe('Invalid parameter "redirect_uris": expected array, received number');
    expect(
      await expectOAuthError(
        await fetch(`${server.url}/authorize`, { redirect: 'manual' }),
        400,
        'invalid_request',
      ),
    ).toBe('Missing parameter "client_id"');
    // Past the redirect check the error goes to the client, in words there too.
    const redirected = await fetch(authorizeUrl({ code_challenge_method: 'plain' }), { redirect: 'manual' });
    const description = new URL(redirected.headers.get('location')!).searchParams.get('error_description');
    expect(description).toMatch(/^Invalid parameter "code_challenge_method": /);
    expect(description).not.toMatch(/[[\]{}]/);
  });

  it('GET on the sign-in and consent routes is 405 with Allow: POST', async () => {
    for (const path of ['/oauth/sign-in', '/oauth/consent']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.headers.get('allow')).toBe('POST');
      await expectOAuthError(response, 405, 'method_not_allowed');
    }
  });
});
