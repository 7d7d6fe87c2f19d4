/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers over the size limit,
 * headers or a body too slow, two Content-Lengths) never reach Express: Node answers them itself with a
 * bare status and no body. This answers them in the shape of the route they were for, where the path is
 * known: a JSON-RPC error on /mcp, an OAuth error (RFC 6749, section 5.2) on the OAuth routes, the
 * GraphQL error shape elsewhere (transport-refusals.ts lists them). Like Node's own handler, it writes
 * only when no response has begun on the socket (a pipelined request after an answered one), and always
 * closes the connection.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { refusalOf } from '../transport-refusals.js';
import { routeOf } from './route-table.js';

type ParserRefusal =
  'http-malformed' | 'headers-too-large' | 'chunk-extensions-too-large' | 'request-timeout';

/** The refusal for each parser error code Node distinguishes (the rest are malformed HTTP). */
function parserRefusalOf(code: string | undefined): ParserRefusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers-too-large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'chunk-extensions-too-large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request-timeout';
    default:
      return 'http-malformed';
  }
}

type ParsingSocket = Duplex & {
  _httpMessage?: { headersSent?: boolean; req?: IncomingMessage };
  parser?: { incoming?: IncomingMessage | null } | null;
};

/**
 * The refused request's path: a parse error's raw packet begins with its request line (when the
 * request began in that packet); a timed-out request is the socket's current one, once its headers came.
 */
function pathOf(error: Error & { rawPacket?: unknown }, socket: ParsingSocket): string | undefined {
  if (Buffer.isBuffer(error.rawPacket)) {
    const line = /^[A-Z]+ ([^\s?#]+)/.exec(error.rawPacket.toString('latin1', 0, 8192));
    if (line) return line[1];
  }
  const url = socket._httpMessage?.req?.url ?? socket.parser?.incoming?.url;
  return url?.split(/[?#]/)[0];
}

/** Status and body of the answer, in the shape of the route the path names. */
function answerFor(refusal: ParserRefusal, path: string | undefined) {
  const route = path === undefined ? undefined : routeOf(path);
  if (route === 'mcp') {
    const { status, jsonRpcCode, message, classification } = refusalOf(`mcp.${refusal}` as const);
    const error = { code: jsonRpcCode, message, data: { classification } };
    return { status, body: { jsonrpc: '2.0', id: null, error } };
  }
  const { status, message, classification } = refusalOf(`graphql.${refusal}` as const);
  if (route === 'oauth') return { status, body: { error: 'invalid_request', error_description: message } };
  return { status, body: { errors: [{ message, extensions: { classification } }] } };
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: ParsingSocket) => {
    // An answer already under way on this socket cannot be followed by another one.
    if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body } = answerFor(parserRefusalOf(error.code), pathOf(error, socket));
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  });
}
