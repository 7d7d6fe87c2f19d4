import { gzipSync } from 'node:zlib';
import {
  graphqlPost,
  type HostileCase,
  JSON_HEADERS,
  MCP_HEADERS,
  mcpPost,
  type RawCase,
  toolCall,
} from './shared.js';

/**
 * Bodies over the limit as fetch-based clients send them (megabytes, the 413 must be readable before the
 * connection closes), and uploads over the limit that stall: the 413 comes at once and the connection is
 * cut within the lingering bounds, not after the request timeout.
 */
export function oversizedBodyCases(): HostileCase[] {
  const megabytes = (n: number) => 'x'.repeat(n * 1024 * 1024);
  const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
  const stalled = (name: string, path: string, headers: string, body: string): RawCase => ({
    kind: 'raw',
    category: 'oversized bodies',
    name,
    bytes: `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n${body}`,
  });
  const mcpHeaders =
    'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n';
  const chunk = 'y'.repeat(200 * 1024);
  return [
    graphqlPost('oversized bodies', '5 MB body', `{ search(query: "${megabytes(5)}") { __typename } }`),
    mcpPost('oversized bodies', '5 MB /mcp body in a session', toolCall('searchMovies', { q: megabytes(5) })),
    mcpPost(
      'oversized bodies',
      '5 MB /mcp body without a session',
      toolCall('searchMovies', { q: megabytes(5) }),
      {
        session: 'none',
      },
    ),
    {
      kind: 'http',
      category: 'oversized bodies',
      name: 'gzip bomb on /graphql (20 MB of zeros)',
      method: 'POST',
      path: '/graphql',
      headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' },
      body: bomb,
    },
    {
      kind: 'http',
      category: 'oversized bodies',
      name: 'gzip bomb on /mcp (20 MB of zeros)',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' },
      body: bomb,
      session: 'anonymous',
    },
    stalled(
      'a declared 50 MB /graphql upload that stalls after 1 KB',
      '/graphql',
      'Content-Type: application/json\r\nContent-Length: 52428800\r\n',
      'z'.repeat(1024),
    ),
    stalled(
      'a declared 50 MB /mcp upload that stalls after 1 KB',
      '/mcp',
      `${mcpHeaders}Content-Length: 52428800\r\n`,
      'z'.repeat(1024),
    ),
    stalled(
      'a chunked /graphql upload past the limit that never sends its last chunk',
      '/graphql',
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    ),
    stalled(
      'a chunked /mcp upload past the limit that never sends its last chunk',
      '/mcp',
      `${mcpHeaders}Transfer-Encoding: chunked\r\n`,
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    ),
  ];
}
