/**
 * Reads a request body as text, bounded, whatever its media type (each route decides what it accepts).
 * Bodies compressed with gzip, deflate or br are decoded (the limit bounds the decoded size); any other
 * coding is refused by the parser as `encoding.unsupported` (415). A body that does not decode as its
 * Content-Encoding says reaches us as a bare zlib error: it is the client's mistake, so it becomes
 * `encoding.mismatch` (400) instead of an unexpected 500. A declared length over the limit is refused
 * before any byte is read: the parser would answer only once the whole (never-sent) body had arrived.
 *
 * The common case, a plain UTF-8 JSON body of a declared length within the limit, is read by
 * `readPlainBody` (the node:http front reads those itself and hands the result on; see front-handoff.ts).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { frontWorkOf, type PreReadBody } from './front-handoff.js';

/** Content types whose body is UTF-8 JSON as express.text decodes it (its default charset is UTF-8). */
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

/**
 * Whether a body is one `readPlainBody` reads exactly as express.text would: a declared length within
 * the limit, not chunked, not encoded, UTF-8 JSON. Any other body goes through express.text.
 */
export function isPlainBody(headers: IncomingHttpHeaders, limitBytes: number): boolean {
  const length = headers['content-length'];
  const type = headers['content-type'];
  return (
    length !== undefined &&
    Number(length) <= limitBytes &&
    headers['transfer-encoding'] === undefined &&
    headers['content-encoding'] === undefined &&
    type !== undefined &&
    PLAIN_JSON_TYPES.has(type.toLowerCase())
  );
}

/** body-parser's error for a client that went away mid-body (`request.aborted`, 400). */
const aborted = () => Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 });

/** Reads a body `isPlainBody` accepted: its UTF-8 text without a byte order mark (as iconv-lite decodes). */
export function readPlainBody(req: IncomingMessage): Promise<PreReadBody> {
  // The client may have gone while the request waited (for its token's verification, say).
  if (req.destroyed) return Promise.resolve({ error: aborted() });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (body: PreReadBody) => {
      if (settled) return;
      settled = true;
      req.off('data', onData).off('error', onGone).off('close', onGone);
      resolve(body);
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    req.on('data', onData);
    req.once('end', () => {
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      settle({ text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text });
    });
    // Only before 'end': settling removes these listeners.
    const onGone = () => settle({ error: aborted() });
    req.once('error', onGone);
    req.once('close', onGone);
  });
}

export function readBody(limitBytes: number): RequestHandler {
  const parse = express.text({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
    const preRead = frontWorkOf(req)?.body;
    if (preRead) {
      if ('error' in preRead) return next(preRead.error);
      req.body = preRead.text;
      return next();
    }
    if (Number(req.headers['content-length']) > limitBytes) {
      // The rest of the body is not wanted: the connection closes once the answer is out.
      res.setHeader('Connection', 'close');
      return next(Object.assign(new Error('request entity too large'), { type: 'entity.too.large' }));
    }
    parse(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return next();
      const typed = typeof error === 'object' && typeof (error as { type?: unknown }).type === 'string';
      next(typed ? error : Object.assign(new Error('body decoding failed'), { type: 'encoding.mismatch' }));
    });
  };
}
