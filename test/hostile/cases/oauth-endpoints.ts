import { gzipSync } from 'node:zlib';
import type { HostileCase } from './shared.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_BODY = { 'content-type': 'application/json' };

/**
 * The built-in authorization server's JSON endpoints (/token, /register, /revoke) and the sign-in and
 * consent forms' body limits: bad grants, oversized fields, repeated and too many parameters, compressed
 * bombs. Form answers a browser reads (the sign-in page) are HTML by design and are not sent here.
 */
export function oauthEndpointCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const post = (name: string, path: string, headers: Record<string, string>, body: string | Uint8Array) =>
    cases.push({ kind: 'http', category: 'oauth endpoints', name, method: 'POST', path, headers, body });
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  const grants: Array<[string, Record<string, string>]> = [
    ['no grant', {}],
    ['unknown grant', { grant_type: 'password', username: 'user', password: 'user123' }],
    [
      'code unknown client',
      { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', client_id: 'nobody' },
    ],
    ['code huge', { grant_type: 'authorization_code', code: 'c'.repeat(20000), client_id: 'nobody' }],
    ['refresh garbage', { grant_type: 'refresh_token', refresh_token: '\u0000\ud800', client_id: 'nobody' }],
    ['client id 10 KB', { grant_type: 'authorization_code', code: 'x', client_id: 'i'.repeat(10000) }],
  ];
  for (const [name, fields] of grants) post(`/token ${name}`, '/token', FORM, form(fields));
  post(
    '/token repeated grant_type',
    '/token',
    FORM,
    'grant_type=authorization_code&grant_type=refresh_token',
  );
  post('/token JSON body', '/token', JSON_BODY, JSON.stringify({ grant_type: 'authorization_code' }));
  post('/token 3000 parameters', '/token', FORM, Array.from({ length: 3000 }, (_, i) => `k${i}=v`).join('&'));

  const registrations: Array<[string, unknown]> = [
    ['no redirect', { client_name: 'x' }],
    ['redirect not a URL', { redirect_uris: ['not a url'] }],
    ['javascript redirect', { redirect_uris: ['javascript:alert(1)'] }],
    [
      'redirect list of 5000',
      { redirect_uris: Array.from({ length: 5000 }, (_, i) => `http://127.0.0.1/${i}`) },
    ],
    ['name 50 KB', { redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 'n'.repeat(50000) }],
    ['redirects an object', { redirect_uris: { a: 1 } }],
    ['__proto__ key', JSON.parse('{"__proto__":{"admin":true},"redirect_uris":["http://127.0.0.1:9/cb"]}')],
  ];
  for (const [name, body] of registrations)
    post(`/register ${name}`, '/register', JSON_BODY, JSON.stringify(body));
  post('/register not JSON', '/register', JSON_BODY, '{"redirect_uris": [');
  post('/register array', '/register', JSON_BODY, '[]');

  post('/revoke no token', '/revoke', FORM, form({ client_id: 'nobody' }));
  post('/revoke huge token', '/revoke', FORM, form({ token: 't'.repeat(30000), client_id: 'nobody' }));

  const bomb = gzipSync(Buffer.from(`username=user&pad=${'x'.repeat(20 * 1024 * 1024)}`));
  for (const path of ['/oauth/sign-in', '/oauth/consent', '/token']) {
    post(`${path} over the form limit`, path, FORM, `username=user&pad=${'x'.repeat(40000)}`);
    post(`${path} gzip bomb`, path, { ...FORM, 'content-encoding': 'gzip' }, bomb);
    post(`${path} 3000 parameters`, path, FORM, Array.from({ length: 3000 }, (_, i) => `k${i}=v`).join('&'));
    post(`${path} 1001 parameters`, path, FORM, Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&'));
  }
  for (const path of ['/revoke', '/register'])
    post(`${path} 1001 parameters`, path, FORM, Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&'));
  return cases;
}
