/**
 * Prometheus metrics (docs/contract.md, Surfaces): HTTP requests, executed GraphQL operations and MCP tool calls,
 * counted and timed by outcome class. Each app has its own registry, and every label has a closed set of
 * values (known routes, status classes, classifications, tool names) so cardinality stays bounded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Registry, Histogram, collectDefaultMetrics } from 'prom-client';
import { Router, type RequestHandler } from 'express';

const KNOWN_ROUTES = ['/graphql', '/mcp', '/healthz', '/readyz', '/metrics'];
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  /** Times every HTTP request by route and status class. */
  middleware: RequestHandler;
  /** Times one request (its path given: a handler of its own has no Express `req.path`). */
  observeRequest(req: IncomingMessage, res: ServerResponse, path: string): void;
  observeOperation(type: string, outcome: string, seconds: number): void;
  observeToolCall(tool: string, outcome: string, seconds: number): void;
  /** A lookup in the result cache: served from it, or executed. */
  observeCacheLookup(hit: boolean): void;
  /** The result cache was cleared by a write here or on another replica. */
  observeCacheInvalidation(origin: 'local' | 'remote'): void;
  routes(): Router;
}

/** The route label of a path: known routes by name, every other path as one of a few fixed values. */
export function routeOf(path: string): string {
  if (KNOWN_ROUTES.includes(path)) return path;
  if (path.startsWith('/.well-known/')) return '/.well-known';
  if (path.startsWith('/graphiql/')) return '/graphiql';
  return 'other';
}

/**
 * Observes into pre-labelled children of a histogram, one per label set (in labelNames order): every
 * label here has a small closed set of values, and an observation then skips hashing a label object.
 */
function labelled(histogram: Histogram): (seconds: number, ...values: string[]) => void {
  const children = new Map<string, ReturnType<Histogram['labels']>>();
  return (seconds, ...values) => {
    const key = values.join('\u0000');
    let child = children.get(key);
    if (!child) children.set(key, (child = histogram.labels(...values)));
    child.observe(seconds);
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'moviedb_' });
  const http = new Histogram({
    name: 'moviedb_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status class',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const operations = new Histogram({
    name: 'moviedb_graphql_operation_duration_seconds',
    help: 'Executed GraphQL operations on /graphql by type and outcome class (OK or the first error classification)',
    labelNames: ['type', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const tools = new Histogram({
    name: 'moviedb_tool_call_duration_seconds',
    help: 'MCP tool calls by tool and outcome class (OK, PARTIAL, CANCELLED or the error classification)',
    labelNames: ['tool', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });

  const cacheLookups = new Counter({
    name: 'moviedb_result_cache_lookups_total',
    help: 'Shareable public reads looked up in the result cache, by result (hit: served from it; miss: executed)',
    labelNames: ['result'],
    registers: [registry],
  });
  const cacheInvalidations = new Counter({
    name: 'moviedb_result_cache_invalidations_total',
    help: 'Times the result cache was cleared by a write, here (local) or on another replica (remote)',
    labelNames: ['origin'],
    registers: [registry],
  });
  // Pre-labelled children: a lookup is counted without building a label object.
  const hits = cacheLookups.labels('hit');
  const misses = cacheLookups.labels('miss');

  const observeHttp = labelled(http);
  const observeOperation = labelled(operations);
  const observeTool = labelled(tools);

  const observeRequest = (req: IncomingMessage, res: ServerResponse, path: string) => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const route = routeOf(path);
    res.once('finish', () =>
      observeHttp(
        (performance.now() - started) / 1000,
        method,
        route,
        `${Math.floor(res.statusCode / 100)}xx`,
      ),
    );
  };

  return {
    middleware: (req, res, next) => {
      observeRequest(req, res, req.path);
      next();
    },
    observeRequest,
    observeOperation: (type, outcome, seconds) => observeOperation(seconds, type, outcome),
    observeToolCall: (tool, outcome, seconds) => observeTool(seconds, tool, outcome),
    observeCacheLookup: (hit) => (hit ? hits : misses).inc(),
    observeCacheInvalidation: (origin) => cacheInvalidations.inc({ origin }),
    routes() {
      const router = Router();
      router.get('/metrics', async (_req, res) => {
        res.type(registry.contentType).send(await registry.metrics());
      });
      return router;
    },
  };
}
