/** Which redirect URIs registration accepts, which scopes a request may name, and the forms' seal. */
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/identity.js';
import { requestedScopes } from '../../src/oauth/authorization-provider.js';
import { createFormSeal, readCookies, sameToken } from '../../src/oauth/form-seal.js';
import { refuseRedirectUri } from '../../src/oauth/redirect-uris.js';

describe('refuseRedirectUri', () => {
  it.each([
    'https://app.example/callback',
    'http://127.0.0.1/callback',
    'http://127.0.0.1:8080/cb?x=1',
    'http://[::1]:9000/cb',
    'http://localhost:3000/cb',
    'com.example.app:/oauth2redirect',
  ])('accepts %s', (uri) => expect(refuseRedirectUri(uri)).toBeUndefined());

  it.each([
    ['not a url', /not an absolute URL/],
    ['http://attacker.example/cb', /loopback only/],
    ['http://127.0.0.2.attacker.example/cb', /loopback only/],
    ['https://app.example/cb#fragment', /fragment/],
    ['https://user:pw@app.example/cb', /credentials/],
    ['javascript:alert(1)', /never a redirect target/],
    ['data:text/html,hi', /never a redirect target/],
    ['myapp:/cb', /reverse-domain/],
  ])('refuses %s', (uri, reason) => expect(refuseRedirectUri(uri)).toMatch(reason));
});

describe('requestedScopes', () => {
  it('no scope means every scope; repeats and empty words are dropped', () => {
    expect(requestedScopes([])).toEqual([...ALL_SCOPES]);
    expect(requestedScopes(['movies:read', '', 'movies:read'])).toEqual(['movies:read']);
  });
  it('an unknown scope is invalid_scope', () => {
    expect(() => requestedScopes(['movies:read', 'admin'])).toThrow(/Unknown scope: admin/);
  });
});

describe('createFormSeal', () => {
  let clock = 1_000_000;
  const seal = createFormSeal('secret', () => clock);

  it('opens what it sealed for the same purpose, before it expires', () => {
    const sealed = seal.seal('request', { a: 1 }, 60);
    expect(seal.open('request', sealed)).toEqual({ a: 1 });
    expect(seal.open('consent', sealed)).toBeUndefined();
    clock += 61_000;
    expect(seal.open('request', sealed)).toBeUndefined();
  });

  it('refuses an altered body or signature, another key, and garbage', () => {
    const sealed = seal.seal('request', { userId: 1 }, 60);
    const [body, signature] = sealed.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: { userId: 2 }, exp: clock + 60_000 })).toString(
      'base64url',
    );
    expect(seal.open('request', `${forged}.${signature}`)).toBeUndefined();
    expect(seal.open('request', `${body}.${signature.slice(1)}x`)).toBeUndefined();
    expect(createFormSeal('other', () => clock).open('request', sealed)).toBeUndefined();
    for (const garbage of [undefined, '', '.', 'a.b.c', 'x'.repeat(10_000)])
      expect(seal.open('request', garbage)).toBeUndefined();
  });
});

describe('CSRF helpers', () => {
  it('compare tokens in full and parse the first cookie of a name', () => {
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abc', 'abd')).toBe(false);
    expect(sameToken(undefined, undefined)).toBe(false);
    expect(readCookies('a=1; b=2; a=3').get('a')).toBe('1');
  });
});
