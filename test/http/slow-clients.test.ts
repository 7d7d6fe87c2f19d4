/**
 * Slowloris: a client that trickles its request holds a socket, and enough of them hold the server. The
 * server promises headers within 10 s and a whole request within 30 s; these tests hold it to the first
 * bound with a client that keeps sending one header line a second and never finishes.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** The server's headersTimeout. */
const HEADERS_WITHIN_MS = 10_000;
/** The server's requestTimeout, the bound Node used to enforce instead of headersTimeout. */
const REQUEST_WITHIN_MS = 30_000;

interface Outcome {
  answer: string;
  closedAfterMs: number;
}

/** Opens a request whose header section never ends: one more header line every second. */
function trickleHeaders(port: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    const drip = setInterval(() => socket.write(`X-Drip-${Date.now()}: 1\r\n`), 1000);
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

describe.each(dialects)('slow clients (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  it(
    'a client trickling header lines is answered 408 and cut off near headersTimeout, not after requestTimeout',
    async () => {
      const port = Number(new URL(server.url).port);
      const [first, second] = await Promise.all([trickleHeaders(port), trickleHeaders(port)]);
      for (const outcome of [first, second]) {
        expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_WITHIN_MS - 100);
        // Swept every second: well before the 30 s a default server waited.
        expect(outcome.closedAfterMs).toBeLessThan(REQUEST_WITHIN_MS - 10_000);
      }
      // Meanwhile and afterwards the server answers others.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
    REQUEST_WITHIN_MS + 20_000,
  );
});
