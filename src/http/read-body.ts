/**
 * Reads a request body as text, bounded, whatever its media type (each route decides what it accepts).
 * Bodies compressed with gzip, deflate or br are decoded (the limit bounds the decoded size); any other
 * coding is refused by the parser as `encoding.unsupported` (415). A body that does not decode as its
 * Content-Encoding says reaches us as a bare zlib error: it is the client's mistake, so it becomes
 * `encoding.mismatch` (400) instead of an unexpected 500. A declared length over the limit is refused
 * before any byte is read: the parser would answer only once the whole (never-sent) body had arrived.
 */
import express, { type RequestHandler } from 'express';

export function readBody(limitBytes: number): RequestHandler {
  const parse = express.text({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
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
