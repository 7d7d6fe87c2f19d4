/**
 * Prometheus metrics (SPEC section 1): HTTP requests, executed GraphQL operations and MCP tool calls,
 * counted and timed by outcome class. Each app has its own registry, and every label has a closed set of
 * values (known routes, status classes, classifications, tool names) so cardinality stays bounded.
 */
import { Registry, Histogram, collectDefaultMetrics } from 'prom-client';
import { Router, type RequestHandler } from 'express';

const KNOWN_ROUTES = ['/graphql', '/mcp', '/healthz', '/readyz', '/metrics'];
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  /** Times every HTTP request by route and status class. */
  middleware: RequestHandler;
  observeOperation(type: string, outcome: string, seconds: number): void;
  observeToolCall(tool: string, outcome: string, seconds: number): void;
  routes(): Router;
}

/** The route label of a path: known routes by name, every other path as one of a few fixed values. */
export function routeOf(path: string): string {
  if (KNOWN_ROUTES.includes(path)) return path;
  if (path.startsWith('/.well-known/')) return '/.well-known';
  if (path.startsWith('/graphiql/')) return '/graphiql';
  return 'other';
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

  return {
    middleware: (req, res, next) => {
      const end = http.startTimer();
      res.on('finish', () =>
        end({
          method: req.method,
          route: routeOf(req.path),
          status: `${Math.floor(res.statusCode / 100)}xx`,
        }),
      );
      next();
    },
    observeOperation: (type, outcome, seconds) => operations.observe({ type, outcome }, seconds),
    observeToolCall: (tool, outcome, seconds) => tools.observe({ tool, outcome }, seconds),
    routes() {
      const router = Router();
      router.get('/metrics', async (_req, res) => {
        res.type(registry.contentType).send(await registry.metrics());
      });
      return router;
    },
  };
}
