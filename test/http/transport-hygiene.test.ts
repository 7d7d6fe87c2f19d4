/**
 * Hostile transport input on /mcp and /graphql (docs/security.md, Transport guards): content codings, malformed and
 * over-deep JSON-RPC params, odd methods and paths. Every answer is a 4xx (or a JSON-RPC error), JSON,
 * and free of stacks, paths and library names.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';
import { raw, type RawResponse } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const QUERY = JSON.stringify({ query: '{ movie(id: "1") { title } }' });
const LEAK =
  /<html|<!DOCTYPE|\bat [\w.<>]+ \(|node_modules|\/src\/|zod|ajv|express|body-parser|zlib|stack|SQL/i;

function expectClean(response: RawResponse): void {
  expect(response.status).toBeLessThan(500);
  expect(response.headers['content-type'] ?? 'application/json').toMatch(/json|event-stream/);
  expect(response.body).not.toMatch(LEAK);
}

/** A JSON object nested `depth` levels deep, written as text (JSON.stringify would recurse that deep). */
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe.each(dialects)('transport hygiene (%s)', (dialect) => {
  let server: TestServer;
  let sessionId: string;
  const mcp = (body: string, headers: Record<string, string> = {}, bytes?: Buffer) =>
    raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: bytes ?? body,
    });
  const call = (params: string) => mcp(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":${params}}`);

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const init = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify(INITIALIZE),
    });
    sessionId = init.headers['mcp-session-id'] as string;
  });
  afterAll(() => server.stop());

  describe('Content-Encoding', () => {
    const endpoints = () => [
      { path: '/graphql', body: QUERY, headers: { 'content-type': 'application/json' } },
      { path: '/mcp', body: JSON.stringify(INITIALIZE), headers: MCP_HEADERS },
    ];

    it.each(['gzip', 'br', 'deflate'])('%s on a plain body is 400 on /graphql and /mcp', async (coding) => {
      for (const { path, body, headers } of endpoints()) {
        const response = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-encoding': coding },
          body,
        });
        expect(response.status, path).toBe(400);
        expect(response.body).toMatch(/does not match its Content-Encoding/);
        expectClean(response);
      }
    });

    it.each(['compress', 'x-unknown', 'gzip, gzip'])('%s is 415 on /graphql and /mcp', async (coding) => {
      for (const { path, body, headers } of endpoints()) {
        const response = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-encoding': coding },
          body,
        });
        expect(response.status, path).toBe(415);
        expect(response.body).toMatch(/Content-Encoding is not supported/);
        expectClean(response);
      }
    });

    it('a gzip body that inflates past the limit is 413 on /graphql and /mcp, however small it is', async () => {
      const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
      expect(bomb.length).toBeLessThan(100 * 1024);
      for (const { path, headers } of endpoints()) {
        const response = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'gzip' },
          body: bomb,
        });
        expect(response.status, path).toBe(413);
        expect(response.body).toMatch(/too large/);
        expectClean(response);
      }
    });

    it('a gzip body cut short is 400 on /graphql and /mcp', async () => {
      for (const { path, body, headers } of endpoints()) {
        const response = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-encoding': 'gzip' },
          body: gzipSync(body).subarray(0, 16),
        });
        expect(response.status, path).toBe(400);
        expect(response.body).toMatch(/does not match its Content-Encoding/);
        expectClean(response);
      }
    });

    it('a chunked body past the limit is 413 on /graphql and /mcp', async () => {
      for (const { path, headers } of endpoints()) {
        const response = await raw(`${server.url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'transfer-encoding': 'chunked' },
          body: 'x'.repeat(200 * 1024),
        });
        expect(response.status, path).toBe(413);
        expect(response.body).toMatch(/too large/);
        expectClean(response);
      }
    });

    it('a body really compressed with gzip is decoded and served', async () => {
      const response = await raw(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(QUERY),
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ data: { movie: { title: 'The Shawshank Redemption' } } });
    });

    it('a body compressed with br is decoded and served on /mcp too', async () => {
      const response = await mcp(
        '',
        { 'content-encoding': 'br' },
        brotliCompressSync(
          '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"getMovie","arguments":{"id":"1"}}}',
        ),
      );
      expect(response.status).toBe(200);
      expect(response.body).toContain('The Shawshank Redemption');
    });
  });

  describe('JSON-RPC params', () => {
    it.each([
      ['{"name":5}', 'params.name: expected string, received number'],
      ['5', 'params: expected object, received number'],
      ['"getMovie"', 'params: expected object, received string'],
      ['{"name":"getMovie","arguments":[1]}', 'params.arguments: expected object, received array'],
      ['{"name":"getMovie","arguments":"id=1"}', 'params.arguments: expected object, received string'],
      ['{}', 'params.name: expected string, received undefined'],
    ])('tools/call with params %s is -32602 naming the field in one line', async (params, problem) => {
      const response = await call(params);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({
        jsonrpc: '2.0',
        id: 41,
        error: { code: -32602, message: `Invalid params: ${problem}` },
      });
      expectClean(response);
    });

    it('initialize with malformed params is -32602 too', async () => {
      const response = await raw(`${server.url}/mcp`, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}',
      });
      expect(JSON.parse(response.body)).toMatchObject({
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid params: params.protocolVersion: expected string, received number',
        },
      });
    });

    it('arguments nested 5,000 deep are -32602; 64 levels reach the tool and are a tool error', async () => {
      const deep = await call(`{"name":"getMovie","arguments":{"id":${nested(5000)}}}`);
      expect(JSON.parse(deep.body)).toEqual({
        jsonrpc: '2.0',
        id: 41,
        error: { code: -32602, message: 'Invalid params: nested deeper than 64 levels' },
      });
      const within = await call(`{"name":"getMovie","arguments":{"id":${nested(63)}}}`);
      expect(within.status).toBe(200);
      expect(within.body).toMatch(/"isError":true/);
      expect(within.body).toMatch(/Invalid arguments for getMovie/);
      const over = await call(`{"name":"getMovie","arguments":{"id":${nested(64)}}}`);
      expect(over.body).toMatch(/nested deeper than 64 levels/);
    });

    it('any other message nested 5,000 deep (a response, a notification) is -32600 without internals', async () => {
      for (const body of [
        `{"jsonrpc":"2.0","id":1,"result":${nested(5000)}}`,
        `{"jsonrpc":"2.0","method":"notifications/cancelled","params":${nested(5000)}}`,
      ]) {
        const response = await mcp(body);
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body)).toMatchObject({
          error: { code: -32600, message: 'Invalid Request: the message is nested deeper than 64 levels' },
        });
        expect(response.body).not.toMatch(/RangeError|call stack/);
      }
    });
  });

  it('odd methods, paths and bodies are JSON 4xx, never HTML or 5xx', async () => {
    const cases: Array<[string, string, Record<string, string>?, string?]> = [
      ['GET', '/nothing-here'],
      ['TRACE', '/'],
      ['DELETE', '/healthz'],
      ['GET', '/%E0%A4%A'],
      ['GET', '/graphql/%'],
      ['PUT', '/mcp', MCP_HEADERS, '{}'],
      ['PATCH', '/graphql', { 'content-type': 'application/json' }, QUERY],
      ['POST', '/graphql', { 'content-type': 'application/json' }, '{"query": '],
      ['POST', '/graphql', { 'content-type': 'application/json; charset=latin-9' }, QUERY],
      ['POST', '/mcp', MCP_HEADERS, '{"jsonrpc": '],
      ['POST', '/mcp', { ...MCP_HEADERS, 'content-type': 'application/json; charset=koi8-x' }, '{}'],
      [
        'POST',
        '/mcp',
        MCP_HEADERS,
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${nested(5000)}}`,
      ],
    ];
    for (const [method, path, headers, body] of cases) {
      const response = await raw(`${server.url}${path}`, { method, headers, body });
      // A JSON-RPC request with bad params is answered as JSON-RPC (-32602, HTTP 200); the rest are 4xx.
      if (!response.body.includes('"code":-32602'))
        expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expectClean(response);
    }
  });
});
