/**
 * Gives each request an id (kept from a well-formed X-Request-Id, else new), a child logger and an access
 * log line. Successful probes (health, readiness, metrics scrapes) log at debug: they arrive every few
 * seconds and say nothing an operator reads; a failing one stays at info.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { PROBE_PATHS } from './health.js';
import type { RequestLocals } from './locals.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    const locals: RequestLocals = {
      requestId,
      logger: logger.child({ requestId }),
      viewer: null,
      // req.ip follows the app's `trust proxy` setting (TRUST_PROXY); undefined only on a closed socket.
      clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    };
    Object.assign(res.locals, locals);
    res.setHeader('x-request-id', requestId);
    res.on('finish', () => {
      const quiet = PROBE_PATHS.has(req.path) && res.statusCode < 400;
      locals.logger[quiet ? 'debug' : 'info'](
        {
          method: req.method,
          // The path only: query strings can carry GraphQL variables.
          path: req.path,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}
