/**
 * The /graphql golden table's requests: valid and malformed, every refusal the endpoint has (Host,
 * method, media types, body reading and decoding, bearer tokens) and the answers that run an operation.
 * Each is sent on a fresh connection as written; `graphql-golden.json` holds what the one request path
 * answers to each (status, headers but Date, body), and `record-graphql-golden.ts` rewrites it.
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { seed } from '../../helpers/seed.js';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from '../../helpers/server.js';

export interface GoldenRequest {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sent without Content-Length (chunked). */
  chunked?: boolean;
}

const USER_ID = String(seed.users.find((u) => u.username === 'user')!.id);

export const expiredToken = (): Promise<string> =>
  new SignJWT({ role: 'USER' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(USER_ID)
    .setIssuer(TEST_ISSUER)
    .setAudience(TEST_AUDIENCE)
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));

const JSON_TYPE = { 'content-type': 'application/json' };
const QUERY = JSON.stringify({ query: '{ movie(id: "1") { title genre } }' });
const GET_QUERY = '/graphql?query=%7B%20movie(id%3A%20%221%22)%20%7B%20title%20%7D%20%7D';

export function graphqlCases(token: string, expired: string): GoldenRequest[] {
  const bearer = { authorization: `Bearer ${token}` };
  const big = JSON.stringify({ query: `{ movie(id: "1") { title } } # ${'x'.repeat(110_000)}` });
  return [
    { name: 'anonymous query', path: '/graphql', headers: JSON_TYPE, body: QUERY },
    {
      name: 'query as a user',
      path: '/graphql',
      headers: { ...JSON_TYPE, ...bearer },
      body: JSON.stringify({ query: '{ me { username role } }' }),
    },
    {
      name: 'charset and graphql-response+json, variables that do not coerce',
      path: '/graphql',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query: 'query ($id: ID!) { movie(id: $id) { title } }', variables: { id: {} } }),
    },
    { name: 'body with a BOM', path: '/graphql', headers: JSON_TYPE, body: `\uFEFF${QUERY}` },
    { name: 'malformed JSON', path: '/graphql', headers: JSON_TYPE, body: '{"query": ' },
    { name: 'empty body', path: '/graphql', headers: JSON_TYPE, body: '' },
    { name: 'wrong content type', path: '/graphql', headers: { 'content-type': 'text/plain' }, body: QUERY },
    { name: 'without content type', path: '/graphql', body: QUERY },
    { name: 'wrong Host', path: '/graphql', headers: { ...JSON_TYPE, host: 'evil.example' }, body: QUERY },
    {
      name: 'wrong Host and a garbage token (Host first)',
      path: '/graphql',
      headers: { ...JSON_TYPE, host: 'evil.example', authorization: 'Bearer not-a-token' },
      body: QUERY,
    },
    {
      name: 'garbage token',
      path: '/graphql',
      headers: { ...JSON_TYPE, authorization: 'Bearer not-a-token' },
      body: QUERY,
    },
    {
      name: 'expired token',
      path: '/graphql',
      headers: { ...JSON_TYPE, authorization: `Bearer ${expired}` },
      body: QUERY,
    },
    {
      name: 'malformed Authorization',
      path: '/graphql',
      headers: { ...JSON_TYPE, authorization: 'Basic abc' },
      body: QUERY,
    },
    {
      name: 'garbage token and malformed JSON (body first)',
      path: '/graphql',
      headers: { ...JSON_TYPE, authorization: 'Bearer not-a-token' },
      body: '{"query": ',
    },
    { name: 'oversized body', path: '/graphql', headers: JSON_TYPE, body: big },
    { name: 'oversized chunked body', path: '/graphql', headers: JSON_TYPE, body: big, chunked: true },
    { name: 'chunked body', path: '/graphql', headers: JSON_TYPE, body: QUERY, chunked: true },
    {
      name: 'gzip body',
      path: '/graphql',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      body: gzipSync(QUERY),
    },
    {
      name: 'body that does not match its Content-Encoding',
      path: '/graphql',
      headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
      body: QUERY,
    },
    {
      name: 'unsupported Content-Encoding',
      path: '/graphql',
      headers: { ...JSON_TYPE, 'content-encoding': 'compress' },
      body: QUERY,
    },
    {
      name: 'unsupported charset',
      path: '/graphql',
      headers: { 'content-type': 'application/json; charset=klingon' },
      body: QUERY,
    },
    { name: 'GET query', path: GET_QUERY, method: 'GET' },
    {
      name: 'GET mutation',
      path: `/graphql?query=${encodeURIComponent('mutation { login(input: { username: "a", password: "b" }) { token } }')}`,
      method: 'GET',
    },
    { name: 'GET without a query', path: '/graphql', method: 'GET', headers: { accept: 'application/json' } },
    {
      name: 'GET as a browser (GraphiQL)',
      path: '/graphql',
      method: 'GET',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    },
    {
      name: 'GET with an unacceptable Accept',
      path: GET_QUERY,
      method: 'GET',
      headers: { accept: 'image/png' },
    },
    { name: 'PUT', path: '/graphql', method: 'PUT', headers: JSON_TYPE, body: QUERY },
    { name: 'DELETE', path: '/graphql', method: 'DELETE' },
    {
      name: 'mutation',
      path: '/graphql',
      headers: JSON_TYPE,
      body: JSON.stringify({
        query: 'mutation { login(input: { username: "nobody", password: "wrong-password" }) { token } }',
      }),
    },
    {
      name: 'POST with a query string',
      path: '/graphql?debug=1',
      headers: JSON_TYPE,
      body: QUERY,
    },
    { name: 'trailing slash', path: '/graphql/', headers: JSON_TYPE, body: QUERY },
    {
      name: 'well-formed request id kept',
      path: '/graphql',
      headers: { ...JSON_TYPE, 'x-request-id': 'golden-1' },
      body: QUERY,
    },
    {
      name: 'malformed request id replaced',
      path: '/graphql',
      headers: { ...JSON_TYPE, 'x-request-id': 'no spaces allowed' },
      body: QUERY,
    },
  ];
}

export interface GoldenAnswer {
  status: number;
  /** All but Date; x-request-id as REQUEST-ID unless the request named its own. */
  headers: Record<string, string>;
  body: string;
}

/** Sends one request on a connection of its own; resolves with the answer and the x-request-id given. */
export function sendGolden(
  baseUrl: string,
  request: GoldenRequest,
): Promise<{ answer: GoldenAnswer; requestId: string }> {
  return new Promise((resolve, reject) => {
    const body = request.body ?? (request.method === undefined || request.method === 'POST' ? '' : undefined);
    const headers: Record<string, string> = { ...request.headers };
    if (body !== undefined && !request.chunked) headers['content-length'] = String(Buffer.byteLength(body));
    const req = httpRequest(
      `${baseUrl}${request.path}`,
      { method: request.method ?? 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const requestId = String(res.headers['x-request-id'] ?? '');
          const named = request.headers?.['x-request-id'];
          const answerHeaders = Object.fromEntries(
            Object.entries(res.headers)
              .filter(([name]) => name !== 'date')
              .map(([name, value]) => [
                name,
                name === 'x-request-id' && value !== named ? 'REQUEST-ID' : String(value),
              ]),
          );
          resolve({
            requestId,
            answer: {
              status: res.statusCode ?? 0,
              headers: answerHeaders,
              body: Buffer.concat(chunks).toString('utf8'),
            },
          });
        });
      },
    );
    // The server may answer (413) and close before the whole body is sent: the answer is what counts.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (body === undefined) req.end();
    else if (request.chunked) {
      req.write(body);
      req.end();
    } else req.end(body);
  });
}
