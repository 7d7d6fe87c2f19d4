/**
 * The one reader of request bodies, for /graphql and /mcp (their one handlers): plain, chunked, and gzip/deflate/br bodies, read as text whatever the media type (each
 * route decides what it accepts). The limit bounds the raw bytes and the decoded bytes alike, so a small
 * compressed body that inflates past it (a zip bomb) is refused as soon as it does. Refusals are typed
 * like body-parser's (`type`, `status`), which the error handlers turn into answers:
 * - `entity.too.large` (413): a declared length over the limit (refused before any byte is read), or
 *   more bytes than the limit, raw or decoded;
 * - `encoding.unsupported` (415): a Content-Encoding other than gzip, deflate, br or identity;
 * - `charset.unsupported` (415): a charset the WHATWG decoder does not know;
 * - `encoding.mismatch` (400): a body that does not decode as its Content-Encoding says;
 * - `request.aborted` (400): the client went away before the body ended.
 *
 * A refused body the client is still sending is read and discarded for a bounded time and size before
 * the socket is destroyed (nginx's lingering close): a server that answers and closes at once makes the
 * client's next write reset the connection, and Node's fetch (undici: the SDK clients, Inspector) then
 * fails with EPIPE instead of reading the 413. Measured, undici takes the answer only once it has sent
 * about all of the body (20 MB on loopback: 1.4-2.2 s on a loaded machine), so the bounds are what a
 * client may upload after its refusal and still read it. An endless or slow upload still holds its
 * socket no longer than the bounds.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface BodyLimits {
  /** Largest body, raw and decoded (BODY_LIMIT_BYTES). */
  limitBytes: number;
  /** How long a refused body's rest is read and discarded before the socket is destroyed. */
  lingerMs: number;
  /** How many bytes of a refused body's rest are read and discarded, at most, before that. */
  lingerBytes: number;
}

/** The lingering bounds' defaults (BODY_LINGER_MS, BODY_LINGER_BYTES; a test keeps them equal). */
export const LINGER_DEFAULTS = { lingerMs: 5000, lingerBytes: 32 * 1024 * 1024 } as const;

type BodyErrorType =
  | 'entity.too.large'
  | 'encoding.unsupported'
  | 'charset.unsupported'
  | 'encoding.mismatch'
  | 'request.aborted';

type BodyError = Error & { type: BodyErrorType; status: number };

/** A body read: its text (without a byte order mark), or the refusal. */
export type BodyRead = { text: string } | { error: BodyError };

const STATUS: Record<BodyErrorType, number> = {
  'entity.too.large': 413,
  'encoding.unsupported': 415,
  'charset.unsupported': 415,
  'encoding.mismatch': 400,
  'request.aborted': 400,
};

function bodyError(type: BodyErrorType): BodyError {
  return Object.assign(new Error(type), { type, status: STATUS[type] });
}

/** Whether a request has a body at all (type-is's rule, as body-parser applies it). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));
}

/** The decoder of a Content-Encoding (body-parser's set), undefined for none, null when unsupported. */
function decoderFor(coding: string): Transform | undefined | null {
  switch (coding) {
    case 'identity':
      return undefined;
    case 'gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

const UTF8 = new Set(['utf-8', 'utf8']);

/** The charset parameter of a Content-Type, lowercased; undefined when there is none (UTF-8 then). */
export function charsetOf(type: string | undefined): string | undefined {
  if (type === undefined || !type.includes(';')) return undefined;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(type);
  const charset = (match?.[1] ?? match?.[2])?.toLowerCase();
  return charset === '' ? undefined : charset;
}

type TextOf = (bytes: Buffer) => string;

const utf8Text: TextOf = (bytes) => {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};

/** Turns bytes of a charset into text (dropping a byte order mark), or null for an unknown charset. */
function textDecoderFor(charset: string | undefined): TextOf | null {
  if (charset === undefined || UTF8.has(charset)) return utf8Text;
  try {
    const decoder = new TextDecoder(charset);
    return (bytes) => decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Reads and discards the rest of a refused body, for `lingerMs` and `lingerBytes` at most, then destroys
 * the socket. The answer goes out on a connection kept alive: answering with `Connection: close` makes
 * Node destroy the socket as soon as the answer is written, unread bytes and all. A body that ends
 * within the bounds leaves the connection reusable, as after any answered request.
 */
function linger(req: IncomingMessage, limits: BodyLimits): void {
  if (req.complete || req.destroyed) return;
  let discarded = 0;
  const cut = () => {
    stop();
    req.socket.destroy();
  };
  const timer = setTimeout(cut, limits.lingerMs);
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.lingerBytes) cut();
  };
  const stop = () => {
    clearTimeout(timer);
    req.off('data', onData).off('end', stop).off('close', stop).off('error', stop);
  };
  req.on('data', onData).once('end', stop).once('close', stop).once('error', stop);
  req.resume();
}

const ignore = () => undefined;

/** Reads a request's body within `limits` (see the module comment for what it refuses). */
export function readRequestBody(req: IncomingMessage, limits: BodyLimits): Promise<BodyRead> {
  // The client may have gone while the request waited (for its token's verification, say).
  if (req.destroyed) return Promise.resolve({ error: bodyError('request.aborted') });
  const refuse = (type: BodyErrorType): BodyRead => {
    linger(req, limits);
    return { error: bodyError(type) };
  };
  if (Number(req.headers['content-length']) > limits.limitBytes)
    return Promise.resolve(refuse('entity.too.large'));
  const decoder = decoderFor((req.headers['content-encoding'] || 'identity').toLowerCase());
  if (decoder === null) return Promise.resolve(refuse('encoding.unsupported'));
  const textOf = textDecoderFor(charsetOf(req.headers['content-type']));
  if (textOf === null) {
    decoder?.destroy();
    return Promise.resolve(refuse('charset.unsupported'));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let rawBytes = 0;
    let bodyBytes = 0;
    let ended = false;
    let settled = false;
    const settle = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onRaw).off('end', onEnd).off('error', onGone).off('close', onGone);
      if (decoder) {
        decoder.off('data', keep).off('end', done);
        decoder.destroy();
      }
      resolve(read);
    };
    const fail = (type: BodyErrorType) => {
      if (settled) return;
      settle({ error: bodyError(type) });
      linger(req, limits);
    };
    const keep = (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes > limits.limitBytes) return fail('entity.too.large');
      chunks.push(chunk);
    };
    const onRaw = (chunk: Buffer) => {
      rawBytes += chunk.length;
      if (rawBytes > limits.limitBytes) return fail('entity.too.large');
      if (decoder) decoder.write(chunk);
      else keep(chunk);
    };
    const done = () => settle({ text: textOf(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) });
    const onEnd = () => {
      ended = true;
      if (decoder) decoder.end();
      else done();
    };
    // Only before 'end': a request that ended closes while its decoder may still be working.
    const onGone = () => {
      if (!ended) settle({ error: bodyError('request.aborted') });
    };
    if (decoder) {
      decoder.on('data', keep).once('end', done);
      // Kept after settling too: a destroyed decoder may still report what it was decoding.
      decoder.on('error', ignore).once('error', () => fail('encoding.mismatch'));
    }
    req.on('data', onRaw).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}
