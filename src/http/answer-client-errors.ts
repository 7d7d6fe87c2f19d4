/**
 * Requests Node's HTTP parser refuses (a malformed request line or header, headers over the size limit,
 * headers or a body too slow, two Content-Lengths) never reach Express: Node answers them itself with a
 * bare status and no body. This answers them in our one error shape instead, so even malformed HTTP gets
 * JSON with a classification. Like Node's own handler, it writes only when no response has begun on the
 * socket (a pipelined request after an answered one), and always closes the connection.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Classification } from '../errors.js';

interface Refusal {
  status: number;
  reason: string;
  classification: Classification;
  message: string;
}

/** Node's status for each parser error code it distinguishes (the rest are 400). */
function refusalFor(code: string | undefined): Refusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        classification: 'BAD_REQUEST',
        message: 'The request headers are too large',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        reason: 'Payload Too Large',
        classification: 'BAD_REQUEST',
        message: 'The chunk extensions are too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        classification: 'TIMEOUT',
        message: 'The request did not arrive in time',
      };
    default:
      return {
        status: 400,
        reason: 'Bad Request',
        classification: 'BAD_REQUEST',
        message: 'The request is not valid HTTP/1.1',
      };
  }
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // An answer already under way on this socket cannot be followed by another one.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || started?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code);
    const body = JSON.stringify({
      errors: [{ message: refusal.message, extensions: { classification: refusal.classification } }],
    });
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
