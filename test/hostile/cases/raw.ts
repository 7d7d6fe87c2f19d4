import { type HostileCase, type RawCase } from './shared.js';

/** HTTP that only a raw socket can send. Each asks the server to close the connection after answering. */
export function rawCases(): HostileCase[] {
  const body = '{"query":"{ __typename }"}';
  const raw = (name: string, bytes: string | Uint8Array): RawCase => ({
    kind: 'raw',
    category: 'raw HTTP',
    name,
    bytes,
  });
  return [
    raw('garbage request line', 'GARBAGE\r\n\r\n'),
    raw('HTTP/0.9', 'GET /graphql\r\n\r\n'),
    raw('no Host header', 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'),
    raw('two Host headers', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'),
    raw(
      'NUL in a header',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n',
    ),
    raw(
      'header without a colon',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColon\r\nConnection: close\r\n\r\n',
    ),
    raw(
      '20 KB header',
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20000)}\r\nConnection: close\r\n\r\n`,
    ),
    raw(
      '20 KB URL',
      `GET /graphql?query=${'q'.repeat(20000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    ),
    raw(
      'Content-Length and Transfer-Encoding',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    ),
    raw(
      'bad chunk size',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    ),
    raw(
      'negative Content-Length',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: -5\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'two Content-Lengths',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 27\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'Content-Length shorter than the body',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'huge Content-Length',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw('bare LF line ends', 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n'),
    raw('HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
    raw('HTTP/3.0 version', 'GET /healthz HTTP/3.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('unknown method', 'FOO /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('TRACE /graphql', 'TRACE /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('TRACE /mcp', 'TRACE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw('CONNECT', 'CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n'),
    raw(
      'absolute-form URL',
      `GET http://evil.example/graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
    ),
    raw('asterisk URL', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    raw(
      'invalid UTF-8 in the path',
      Buffer.concat([
        Buffer.from('GET /graphql?query='),
        Buffer.from([0xff, 0xc0, 0xaf]),
        Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
      ]),
    ),
    raw(
      'pipelined garbage',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}GARBAGE / HTTP/1.1\r\n\r\n`,
    ),
    raw(
      'pipelined: a probe, a mutation over GET and a tool call without a session',
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /graphql?query=mutation%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 58\r\nConnection: close\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
    ),
    raw(
      'chunked JSON for /mcp',
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\n{"j\r\n0\r\n\r\n`,
    ),
    raw(
      'Expect: 100-continue refused',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'header folding',
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n b\r\nConnection: close\r\n\r\n',
    ),
    raw('space before colon', 'GET /healthz HTTP/1.1\r\nHost : x\r\nConnection: close\r\n\r\n'),
    raw(
      'gzip body that is not gzip',
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw(
      'foreign Host on /graphql (DNS rebinding)',
      `POST /graphql HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
    raw('Host with a NUL escape', 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1%00evil\r\nConnection: close\r\n\r\n'),
    raw(
      '/mcp two Content-Lengths',
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{}',
    ),
    raw(
      '/token 20 KB header',
      `POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20000)}\r\nConnection: close\r\n\r\n`,
    ),
    raw(
      '/token bad chunk size',
      `POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n`,
    ),
  ];
}
