/**
 * A server span per HTTP request (OpenTelemetry HTTP semantic conventions): method, route, path, scheme,
 * status. Never the query string (GraphQL variables can ride in it) nor any header; an incoming W3C
 * `traceparent` makes the span a child of the caller's. Probes (health, readiness, metrics) get none.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  createContextKey,
  defaultTextMapGetter,
  trace,
} from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { PROBE_PATHS } from '../http/health.js';
import { routeOf } from '../http/metrics.js';
import type { SpanKit } from './span-kit.js';

/** The request's MCP-Protocol-Version, carried in the context to the tool span (trace-tool-runner.ts). */
export const MCP_PROTOCOL_VERSION = createContextKey('moviedb-mcp protocol version');

const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

export function traceHttpRequests({ tracer, contextManager, propagator }: SpanKit): RequestHandler {
  return (req, res, next) => {
    if (PROBE_PATHS.has(req.path)) return next();
    const route = routeOf(req.path);
    const known = route !== 'other';
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    let parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      known ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': req.path,
          'url.scheme': req.protocol,
          'network.protocol.version': req.httpVersion,
          ...(known ? { 'http.route': route } : {}),
        },
      },
      parent,
    );
    const version = req.headers['mcp-protocol-version'];
    if (route === '/mcp' && typeof version === 'string')
      parent = parent.setValue(MCP_PROTOCOL_VERSION, version);
    // No need to bind req and res to the context: the one reader of bodies (express.text, on raw-body)
    // calls back in the request's async context even when the body arrives in later packets.
    const context = trace.setSpan(parent, span);
    res.once('close', () => {
      if (res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
      // Server spans count only 5xx answers as errors (HTTP semantic conventions).
      if (res.statusCode >= 500) {
        span.setAttribute('error.type', String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    contextManager.with(context, next);
  };
}
