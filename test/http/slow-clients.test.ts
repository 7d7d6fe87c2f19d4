/**
 * HTTP that Node's parser refuses before Express sees it. Slowloris: a client that trickles its request
 * holds a socket, and enough of them hold the server; the server promises headers within 10 s and a
 * whole request within 30 s, and these tests hold it to the first bound with a client that keeps sending
 * header lines. The server here is given shorter bounds of the same shape (the sweep stays at its 1 s),
 * so that holding it to them does not mean waiting 40 s per store. And whatever the parser refuses is
 * answered in our JSON error shape, with a classification, like everything else (Node's own answer has
 * no body).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** This server's headersTimeout (10 s in production). */
const HEADERS_WITHIN_MS = 2_000;
/**
 * This server's requestTimeout (30 s in production), the bound Node used to enforce instead of
 * headersTimeout: far enough beyond headersTimeout and the 1 s sweep that the two cannot be confused.
 */
const REQUEST_WITHIN_MS = 8_000;

interface Outcome {
  answer: string;
  closedAfterMs: number;
}

/** Opens a request whose header section never ends: one more header line every quarter second. */
function trickleHeaders(port: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    const drip = setInterval(() => socket.write(`X-Drip-${Date.now()}: 1\r\n`), 250);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer, closedAfterMs: performance.now() - started });
    });
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', (error) => error && reject(error));
    // The test's own timeout would fire first; this only makes sure nothing is left open.
    setTimeout(() => socket.destroy(), REQUEST_WITHIN_MS + 10_000).unref();
  });
}

/** Writes bytes on a fresh connection and collects everything until the server closes it. */
function sendRaw(port: number, bytes: string, giveUpAfterMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.write(bytes);
    setTimeout(() => socket.destroy(), giveUpAfterMs).unref();
  });
}

function jsonBodyOf(answer: string): unknown {
  const [head, body] = answer.split('\r\n\r\n') as [string, string | undefined];
  expect(head).toMatch(/\r\ncontent-type: application\/json/i);
  return JSON.parse(body ?? '');
}

describe.each(dialects)('slow and malformed clients (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      httpTimeouts: { headersMs: HEADERS_WITHIN_MS, requestMs: REQUEST_WITHIN_MS },
    });
  });
  afterAll(() => server.stop());

  it(
    'a client trickling header lines is answered 408 and cut off near headersTimeout, not after requestTimeout',
    async () => {
      const port = Number(new URL(server.url).port);
      const [first, second] = await Promise.all([trickleHeaders(port), trickleHeaders(port)]);
      for (const outcome of [first, second]) {
        expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(jsonBodyOf(outcome.answer)).toEqual({
          errors: [
            {
              message: 'The request did not arrive in time',
              extensions: { classification: 'TIMEOUT' },
            },
          ],
        });
        expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_WITHIN_MS - 100);
        // Swept every second: well before requestTimeout, where Node's default 30 s sweep cut it.
        expect(outcome.closedAfterMs).toBeLessThan(REQUEST_WITHIN_MS - 2_000);
      }
      // Meanwhile and afterwards the server answers others.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
    REQUEST_WITHIN_MS + 20_000,
  );

  // HTTP/1.1 without Host is refused by Node before any hook (requireHostHeader): a bare 400, no body.
  it.each([
    ['a malformed request line', 400, 'BAD_REQUEST', 'GET /healthz HTTP/9.9 junk\r\n\r\n'],
    [
      'two different Content-Lengths',
      400,
      'BAD_REQUEST',
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}',
    ],
    [
      'Content-Length with Transfer-Encoding',
      400,
      'BAD_REQUEST',
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'a negative Content-Length',
      400,
      'BAD_REQUEST',
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n',
    ],
    [
      'headers over the size limit',
      431,
      'BAD_REQUEST',
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ],
    [
      'chunk extensions over the limit',
      413,
      'BAD_REQUEST',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
    ],
  ] as const)(
    '%s is answered %i (%s) in the JSON error shape, and the connection closed',
    async (_, status, classification, bytes) => {
      const port = Number(new URL(server.url).port);
      const answer = await sendRaw(port, bytes);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(jsonBodyOf(answer)).toMatchObject({ errors: [{ extensions: { classification } }] });
    },
  );

  // Where the request line names the route, the answer has that route's shape.
  const TWO_LENGTHS = (path: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}`;
  const BIG_HEADERS = (path: string) =>
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;

  it.each([
    [400, 'BAD_REQUEST', 'Invalid Request: the request is not valid HTTP/1.1', TWO_LENGTHS('/mcp')],
    [431, 'BAD_REQUEST', 'Invalid Request: the request headers are too large', BIG_HEADERS('/mcp?x=1')],
  ] as const)(
    'on /mcp the parser refusal %i is a JSON-RPC error (-32600)',
    async (status, classification, message, bytes) => {
      const answer = await sendRaw(Number(new URL(server.url).port), bytes);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(jsonBodyOf(answer)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message, data: { classification } },
      });
    },
  );

  it.each([
    [400, 'The request is not valid HTTP/1.1', TWO_LENGTHS('/token')],
    [431, 'The request headers are too large', BIG_HEADERS('/oauth/sign-in')],
  ] as const)(
    'on the OAuth routes the parser refusal %i is an OAuth error',
    async (status, description, bytes) => {
      const answer = await sendRaw(Number(new URL(server.url).port), bytes);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(jsonBodyOf(answer)).toEqual({ error: 'invalid_request', error_description: description });
    },
  );

  it(
    'a /mcp request whose body does not arrive within requestTimeout is answered 408 as a JSON-RPC error',
    async () => {
      const answer = await sendRaw(
        Number(new URL(server.url).port),
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10\r\n\r\n{',
        REQUEST_WITHIN_MS + 5000,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(jsonBodyOf(answer)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: the request did not arrive in time',
          data: { classification: 'TIMEOUT' },
        },
      });
    },
    REQUEST_WITHIN_MS + 10_000,
  );

  it('a pipelined request the parser refuses after a good one leaves the good answer whole', async () => {
    const port = Number(new URL(server.url).port);
    const answer = await sendRaw(
      port,
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /healthz HTTP/9.9 junk\r\n\r\n',
    );
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses[0]).toBe(200);
    expect(answer).toContain('{"status":"ok"}');
    expect(statuses.slice(1).every((s) => s === 400)).toBe(true);
  });
});
