/**
 * Every path this server answers, in one table that the router, the drain gate and the dispatch
 * read alike, so none of them can take a path for another. Paths are matched exactly: RFC 3986 makes a
 * path case-sensitive, the MCP transport names a single endpoint, and a server that also answers /MCP or
 * /mcp/ has two spellings of each route that every path-keyed policy (drain, metrics, a proxy's rules)
 * must agree on; so anything else is a 404, as nginx's exact `location =` and most API gateways answer.
 */

/** What a route is, for the policies that treat routes differently. */
export type RouteKind = 'graphql' | 'mcp' | 'probe' | 'metadata' | 'graphiql-asset' | 'oauth';

export const GRAPHQL_PATH = '/graphql';
export const MCP_PATH = '/mcp';
/** Liveness and readiness (health.ts). */
export const HEALTH_ROUTES = ['/healthz', '/readyz'];
export const METRICS_PATH = '/metrics';
/** Probes and scrapes: answered even while draining. */
export const PROBE_ROUTES = [...HEALTH_ROUTES, METRICS_PATH];
/** RFC 9728 protected-resource metadata (mcp-route.ts). */
const METADATA_ROUTES = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
] as const;
/** The built-in OAuth 2.1 authorization server's endpoints and pages (src/oauth/). */
export const OAUTH_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/authorize',
  '/oauth/sign-in',
  '/oauth/consent',
  '/token',
  '/register',
  '/revoke',
];
/** GraphiQL's static files: one name below this prefix (graphiql.ts). */
export const GRAPHIQL_ASSET_PREFIX = '/graphiql/';

const EXACT: ReadonlyMap<string, RouteKind> = new Map<string, RouteKind>([
  [GRAPHQL_PATH, 'graphql'],
  [MCP_PATH, 'mcp'],
  ...PROBE_ROUTES.map((path) => [path, 'probe'] as const),
  ...METADATA_ROUTES.map((path) => [path, 'metadata'] as const),
  ...OAUTH_PATHS.map((path) => [path, 'oauth'] as const),
]);

/** The route a request path (no query string) belongs to; undefined for every other spelling. */
export function routeOf(path: string): RouteKind | undefined {
  const exact = EXACT.get(path);
  if (exact) return exact;
  if (path.startsWith(GRAPHIQL_ASSET_PREFIX)) {
    const asset = path.slice(GRAPHIQL_ASSET_PREFIX.length);
    if (asset.length > 0 && !asset.includes('/')) return 'graphiql-asset';
  }
  return undefined;
}
