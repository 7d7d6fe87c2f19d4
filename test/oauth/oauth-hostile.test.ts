/**
 * Hostile clients against the built-in authorization server, over real HTTP: open redirects, code
 * replay, PKCE downgrade, mismatched redirect or resource, refresh-token reuse after rotation and forged
 * forms (registration floods and sign-in guessing: oauth-floods.test.ts). Every refusal is a 4xx with an
 * OAuth error code, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagesBrowser, hiddenFields, pkcePair } from '../helpers/oauth-browser.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const CALLBACK = 'http://127.0.0.1:43210/callback';

describe.each(dialects)('built-in authorization server refuses (%s)', (dialect) => {
  let server: TestServer;
  let user: { username: string; password: string };
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: { MCP_AUTH: 'required', REGISTRATIONS_PER_ADDRESS: '200' },
    });
    user = { username: (await server.newUser()).username, password: 'secret123' };
  });
  afterAll(() => server.stop());

  const resource = () => `${server.url}/mcp`;

  async function register(redirectUris: string[]) {
    const response = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'hostile',
        redirect_uris: redirectUris,
        token_endpoint_auth_method: 'none',
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  function authorizeUrl(clientId: string, params: Record<string, string>) {
    const url = new URL(`${server.url}/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, ...params }).toString();
    return url.href;
  }

  async function token(form: Record<string, string>) {
    const response = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  /** A registered client, an approved authorization and its code. */
  async function approvedCode(redirectUri = CALLBACK) {
    const { body: client } = await register([CALLBACK]);
    const pkce = pkcePair();
    const { location } = await new PagesBrowser().signInAndDecide(
      authorizeUrl(client.client_id!, {
        redirect_uri: redirectUri,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        resource: resource(),
        state: 'st-1',
      }),
      user,
    );
    const code = new URL(location).searchParams.get('code')!;
    return { clientId: client.client_id!, pkce, code, location };
  }

  it('an unregistered redirect_uri is answered 400 on our page, never redirected to', async () => {
    const { body: client } = await register([CALLBACK]);
    const response = await fetch(
      authorizeUrl(client.client_id!, {
        redirect_uri: 'https://attacker.example/steal',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('registration refuses redirect URIs that are not https, loopback or a reverse-domain scheme', async () => {
    for (const uri of [
      'http://attacker.example/cb',
      'javascript:alert(1)',
      'https://ok.example/cb#frag',
      'myapp:/cb',
    ]) {
      const { status, body } = await register([uri]);
      expect({ uri, status, error: body.error }).toEqual({
        uri,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
    expect((await register(['com.example.app:/callback', 'http://[::1]/cb'])).status).toBe(201);
  });

  it('a loopback redirect may use another port (RFC 8252), and the code comes back with the state', async () => {
    const { location } = await approvedCode('http://127.0.0.1:54321/callback');
    const url = new URL(location);
    expect(url.origin).toBe('http://127.0.0.1:54321');
    expect(url.searchParams.get('state')).toBe('st-1');
  });

  it('PKCE: plain or missing challenges are refused at the redirect, a wrong verifier at the token endpoint', async () => {
    const { body: client } = await register([CALLBACK]);
    const downgrades: Record<string, string>[] = [
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
      { code_challenge: 'a'.repeat(43) },
      {},
    ];
    for (const params of downgrades) {
      const response = await fetch(authorizeUrl(client.client_id!, { redirect_uri: CALLBACK, ...params }), {
        redirect: 'manual',
      });
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    }
    const { clientId, code } = await approvedCode();
    const wrong = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: pkcePair().verifier,
      redirect_uri: CALLBACK,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a replayed code is refused and revokes the refresh token the first exchange obtained', async () => {
    const { clientId, pkce, code } = await approvedCode();
    const form = {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: pkce.verifier,
      redirect_uri: CALLBACK,
    };
    const first = await token(form);
    expect(first.status).toBe(200);
    expect(await token(form)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refreshed = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body.refresh_token!,
    });
    expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a redirect_uri or resource other than the authorization request named is refused', async () => {
    const a = await approvedCode();
    expect(
      await token({
        grant_type: 'authorization_code',
        client_id: a.clientId,
        code: a.code,
        code_verifier: a.pkce.verifier,
        redirect_uri: 'http://127.0.0.1:1/other',
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const b = await approvedCode();
    expect(
      await token({
        grant_type: 'authorization_code',
        client_id: b.clientId,
        code: b.code,
        code_verifier: b.pkce.verifier,
        resource: 'https://elsewhere.example/mcp',
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const { body: client } = await register([CALLBACK]);
    const response = await fetch(
      authorizeUrl(client.client_id!, {
        redirect_uri: CALLBACK,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource: 'https://elsewhere.example/mcp',
      }),
      { redirect: 'manual' },
    );
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('Deny redirects with access_denied and the state, and issues no code', async () => {
    const { body: client } = await register([CALLBACK]);
    const { location } = await new PagesBrowser().signInAndDecide(
      authorizeUrl(client.client_id!, {
        redirect_uri: CALLBACK,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st-deny',
      }),
      user,
      'deny',
    );
    const params = new URL(location).searchParams;
    expect([params.get('error'), params.get('state'), params.get('code')]).toEqual([
      'access_denied',
      'st-deny',
      null,
    ]);
    expect(await server.count('oauth_codes', `client_id = '${client.client_id}'`)).toBe(0);
  });

  it('the sign-in page is self-contained: labelled fields, no script or external asset, unframeable', async () => {
    const { body: client } = await register([CALLBACK]);
    const response = await fetch(
      authorizeUrl(client.client_id!, {
        redirect_uri: CALLBACK,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const html = await response.text();
    expect(html).toContain('<label for="username">Username</label><input id="username"');
    expect(html).toContain('<label for="password">Password</label><input id="password"');
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\//);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('set-cookie')).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/);
  });

  it('a code is only good for the client it was issued to', async () => {
    const a = await approvedCode();
    const { body: other } = await register([CALLBACK]);
    expect(
      await token({
        grant_type: 'authorization_code',
        client_id: other.client_id!,
        code: a.code,
        code_verifier: a.pkce.verifier,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refresh tokens rotate; the old one presented again ends the grant, and revocation ends it too', async () => {
    const { clientId, pkce, code } = await approvedCode();
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: pkce.verifier,
    });
    const rotated = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token!,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(issued.body.refresh_token);
    const reused = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token!,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The reuse revoked the family: the newest token is dead too.
    expect(
      await token({
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: rotated.body.refresh_token!,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const again = await approvedCode();
    const fresh = await token({
      grant_type: 'authorization_code',
      client_id: again.clientId,
      code: again.code,
      code_verifier: again.pkce.verifier,
    });
    const revoked = await fetch(`${server.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: again.clientId, token: fresh.body.refresh_token! }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(
      await token({
        grant_type: 'refresh_token',
        client_id: again.clientId,
        refresh_token: fresh.body.refresh_token!,
      }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a form without the CSRF cookie, or with an altered request, is refused and issues nothing', async () => {
    const { body: client } = await register([CALLBACK]);
    const browser = new PagesBrowser();
    const page = await browser.get(
      authorizeUrl(client.client_id!, {
        redirect_uri: CALLBACK,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const fields = hiddenFields(page.html);
    const forged = await new PagesBrowser().post(`${server.url}/oauth/sign-in`, { ...fields, ...user });
    expect(forged.status).toBe(403);
    const altered = await browser.post(`${server.url}/oauth/sign-in`, {
      ...fields,
      request: `${fields.request}x`,
      ...user,
    });
    expect(altered.status).toBe(403);
    const wrong = await browser.post(`${server.url}/oauth/sign-in`, {
      ...fields,
      username: user.username,
      password: 'nope',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('Invalid credentials');
  });
});
