/**
 * A server span per HTTP request (OpenTelemetry HTTP semantic conventions): method, route, path, scheme,
 * status. Never the query string (GraphQL variables can ride in it) nor any header; an incoming W3C
 * `traceparent` makes the span a child of the caller's. Probes (health, readiness, metrics) get none.
 * It wraps the server's whole request listener, so a traced server runs the same request path as an
 * untraced one (every handler, the /graphql and /mcp ones included, runs inside the span).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  createContextKey,
  defaultTextMapGetter,
  trace,
} from '@opentelemetry/api';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { TLSSocket } from 'node:tls';
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

/** Trusts the proxy at this address (the app's compiled TRUST_PROXY, hop 0 being the socket's peer). */
type TrustProxy = (address: string, hop: number) => boolean;

/** The scheme as Express's `req.protocol` gives it: the socket's, or a trusted proxy's X-Forwarded-Proto. */
function schemeOf(req: IncomingMessage, trust: TrustProxy): string {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  if (!trust(req.socket.remoteAddress ?? '', 0)) return scheme;
  const forwarded = req.headers['x-forwarded-proto'];
  const header = (Array.isArray(forwarded) ? forwarded[0] : forwarded) || scheme;
  return header.split(',')[0]!.trim();
}

export type TraceListener = (listener: RequestListener, trust: TrustProxy) => RequestListener;

export function traceHttpRequests({ tracer, contextManager, propagator }: SpanKit): TraceListener {
  return (listener, trust) => (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (PROBE_PATHS.has(path)) return listener(req, res);
    const route = routeOf(path);
    const known = route !== 'other';
    const method = req.method && KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    let parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      known ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': path,
          'url.scheme': schemeOf(req, trust),
          'network.protocol.version': req.httpVersion,
          ...(known ? { 'http.route': route } : {}),
        },
      },
      parent,
    );
    const version = req.headers['mcp-protocol-version'];
    if (route === '/mcp' && typeof version === 'string')
      parent = parent.setValue(MCP_PROTOCOL_VERSION, version);
    // No need to bind req and res to the context: the body readers resolve promises (or call back, in
    // raw-body's case) in the request's async context even when the body arrives in later packets.
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
    contextManager.with(context, () => listener(req, res));
  };
}
