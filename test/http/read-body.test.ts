/**
 * The one body reader, on a bare node:http server on port 0 whose handler answers what the reader
 * returned: what it reads (plain, chunked, gzip/deflate/br, charsets), what it refuses (too large raw,
 * too large decoded, a bad or unsupported encoding, an unknown charset, an aborted body), and how long it
 * keeps reading a refused body before cutting the connection (its lingering bounds, set short here).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  LINGER_DEFAULTS,
  charsetOf,
  hasBody,
  readRequestBody,
  type BodyLimits,
  type BodyRead,
} from '../../src/http/read-body.js';
import { raw } from '../helpers/raw-http.js';

const LIMIT = 1024;

describe('the body reader', () => {
  let server: Server;
  let url: string;
  let port: number;
  let limits: BodyLimits;
  const reads: BodyRead[] = [];
  let begun = 0;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      begun++;
      void readRequestBody(req, limits).then((read) => {
        reads.push(read);
        if (res.destroyed) return;
        const status = 'error' in read ? read.error.status : 200;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify('error' in read ? { type: read.error.type } : { text: read.text }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  beforeEach(() => {
    limits = { limitBytes: LIMIT, lingerMs: 10_000, lingerBytes: 1 << 30 };
    reads.length = 0;
    begun = 0;
  });

  const post = (body: string | Buffer, headers: Record<string, string> = {}) =>
    raw(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  describe('reads', () => {
    const text = '{"query":"{ movie(id: \\"1\\") { title } }","é":"✓"}';
    it.each([
      ['a plain body', Buffer.from(text), {}],
      ['a body with a byte order mark', Buffer.from(`\ufeff${text}`), {}],
      ['a chunked body', Buffer.from(text), { 'transfer-encoding': 'chunked' }],
      ['a gzip body', gzipSync(text), { 'content-encoding': 'gzip' }],
      ['a GZIP body (codings are case-insensitive)', gzipSync(text), { 'content-encoding': 'GZIP' }],
      ['a deflate body', deflateSync(text), { 'content-encoding': 'deflate' }],
      ['a br body', brotliCompressSync(text), { 'content-encoding': 'br' }],
      ['an identity body', Buffer.from(text), { 'content-encoding': 'identity' }],
      ['a quoted UTF-8 charset', Buffer.from(text), { 'content-type': 'application/json; charset="UTF-8"' }],
    ] as Array<[string, Buffer, Record<string, string>]>)('%s as its text', async (_, body, headers) => {
      const answer = await post(body, headers);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ text });
    });

    it('a latin1 body as its text', async () => {
      const latin = '{"title":"Amélie"}';
      const answer = await post(Buffer.from(latin, 'latin1'), {
        'content-type': 'application/json; charset=latin1',
      });
      expect(JSON.parse(answer.body)).toEqual({ text: latin });
    });

    it('a UTF-16 body (with its byte order mark) as its text', async () => {
      const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const answer = await post(body, { 'content-type': 'application/json; charset=utf-16le' });
      expect(JSON.parse(answer.body)).toEqual({ text });
    });

    it('a body exactly at the limit, raw and decoded', async () => {
      const body = 'x'.repeat(LIMIT);
      expect(JSON.parse((await post(body)).body)).toEqual({ text: body });
      expect(JSON.parse((await post(gzipSync(body), { 'content-encoding': 'gzip' })).body)).toEqual({
        text: body,
      });
    });
  });

  describe('refuses', () => {
    it.each([
      ['a declared length over the limit', 'x'.repeat(LIMIT + 1), {}, 413, 'entity.too.large'],
      [
        'a chunked body over the limit',
        'x'.repeat(LIMIT + 1),
        { 'transfer-encoding': 'chunked' },
        413,
        'entity.too.large',
      ],
      [
        'a gzip body whose raw bytes are over the limit though it decodes to almost nothing',
        Buffer.concat([...Array.from({ length: 100 }, () => gzipSync('')), gzipSync('{}')]),
        { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' },
        413,
        'entity.too.large',
      ],
      [
        'a zip bomb (1 KB of gzip that inflates to about 1 MB)',
        gzipSync(Buffer.alloc(10 * 1024 * 1024)).subarray(0, LIMIT),
        { 'content-encoding': 'gzip' },
        413,
        'entity.too.large',
      ],
      [
        'a gzip body that is not gzip',
        '{"query":"{ __typename }"}',
        { 'content-encoding': 'gzip' },
        400,
        'encoding.mismatch',
      ],
      [
        'a truncated gzip body',
        gzipSync('{"query":"{ __typename }"}').subarray(0, 12),
        { 'content-encoding': 'gzip' },
        400,
        'encoding.mismatch',
      ],
      [
        'a br body that is not br',
        'not brotli at all',
        { 'content-encoding': 'br' },
        400,
        'encoding.mismatch',
      ],
      ['compress', '{}', { 'content-encoding': 'compress' }, 415, 'encoding.unsupported'],
      ['gzip, gzip', '{}', { 'content-encoding': 'gzip, gzip' }, 415, 'encoding.unsupported'],
      ['x-unknown', '{}', { 'content-encoding': 'x-unknown' }, 415, 'encoding.unsupported'],
      [
        'an unknown charset',
        '{}',
        { 'content-type': 'application/json; charset=koi8-x' },
        415,
        'charset.unsupported',
      ],
    ] as const)('%s', async (_, body, headers, status, type) => {
      const answer = await post(typeof body === 'string' ? body : Buffer.from(body), headers);
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({ type });
    });

    it('a body the client abandons halfway settles as request.aborted', async () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"query":',
      );
      await expect.poll(() => begun).toBe(1);
      socket.destroy();
      await expect
        .poll(() => reads.map((read) => ('error' in read ? read.error.type : 'text')))
        .toEqual(['request.aborted']);
    });

    it('a request whose client went before the read began settles as request.aborted', async () => {
      const req = { destroyed: true, headers: {} } as unknown as IncomingMessage;
      const read = await readRequestBody(req, limits);
      expect('error' in read && read.error.type).toBe('request.aborted');
    });
  });

  describe('lingers after a refusal', () => {
    /**
     * Declares a body over the limit, then sends `chunk` every `everyMs` (0: as fast as the socket
     * takes it) until the server closes; resolves with the answer and when the close came.
     */
    function endlessUpload(
      chunk: Buffer,
      everyMs: number,
    ): Promise<{ answer: string; closedAfterMs: number; sent: number }> {
      return new Promise((resolve) => {
        const started = performance.now();
        const socket: Socket = connect(port, '127.0.0.1');
        let answer = '';
        let sent = 0;
        let timer: NodeJS.Timeout | undefined;
        const pump = () => {
          if (socket.destroyed) return;
          sent += chunk.length;
          const more = socket.write(
            `${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`,
            'latin1',
          );
          if (everyMs > 0) timer = setTimeout(pump, everyMs);
          else if (more) setImmediate(pump);
          else socket.once('drain', pump);
        };
        socket.setEncoding('latin1');
        socket.on('data', (data: string) => (answer += data));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve({ answer, closedAfterMs: performance.now() - started, sent });
        });
        socket.write(
          'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        pump();
      });
    }

    it('a slow endless upload gets its 413 and is cut at the time bound', async () => {
      limits = { limitBytes: LIMIT, lingerMs: 300, lingerBytes: 1 << 30 };
      const outcome = await endlessUpload(Buffer.alloc(LIMIT * 2, 'x'), 20);
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(outcome.answer).toContain('{"type":"entity.too.large"}');
      expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(280);
      expect(outcome.closedAfterMs).toBeLessThan(2000);
    });

    it('a fast endless upload gets its 413 and is cut at the size bound, well before the time bound', async () => {
      limits = { limitBytes: LIMIT, lingerMs: 20_000, lingerBytes: 2 * 1024 * 1024 };
      const outcome = await endlessUpload(Buffer.alloc(64 * 1024, 'x'), 0);
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(outcome.closedAfterMs).toBeLessThan(10_000);
      expect(outcome.sent).toBeGreaterThan(limits.lingerBytes);
    });

    it('a refused body that ends within the bounds leaves the connection open for the next request', async () => {
      const socket = connect(port, '127.0.0.1');
      socket.setEncoding('latin1');
      let answer = '';
      socket.on('data', (data: string) => (answer += data));
      const big = 'x'.repeat(LIMIT * 4);
      socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}` +
          'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      );
      await expect
        .poll(() => [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]))
        .toEqual(['413', '200']);
      expect(answer).toContain('{"text":"{}"}');
      socket.destroy();
    });
  });
});

describe('the body reader helpers', () => {
  it.each([
    [undefined, undefined],
    ['application/json', undefined],
    ['application/json; charset=utf-8', 'utf-8'],
    ['application/json;charset=UTF-8', 'utf-8'],
    ['application/json; charset="Latin1"', 'latin1'],
    ['application/json; foo=bar; charset=koi8-r', 'koi8-r'],
    ['application/json; charset=', undefined],
    ['application/json; charset', undefined],
  ])('the charset of %j is %j', (type, charset) => {
    expect(charsetOf(type)).toBe(charset);
  });

  it('a request has a body when it declares a length or a transfer coding (type-is)', () => {
    expect(hasBody({})).toBe(false);
    expect(hasBody({ 'content-length': '0' })).toBe(true);
    expect(hasBody({ 'transfer-encoding': 'chunked' })).toBe(true);
  });

  it("the lingering defaults are the settings' defaults", () => {
    const { body } = loadConfig({});
    expect(body.lingerMs).toBe(LINGER_DEFAULTS.lingerMs);
    expect(body.lingerBytes).toBe(LINGER_DEFAULTS.lingerBytes);
  });
});
