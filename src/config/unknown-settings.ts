/**
 * A misspelt setting must stop the start, not be silently ignored (apollo-mcp-server's
 * `deny_unknown_fields`). Checked: every variable in the project's namespaces (the first word of its
 * settings' names, `MCP_`, `GRAPHQL_`, `DATABASE_`, ...) and every key of the `.env` file read, that is
 * not a setting. Not checked: what others legitimately set beside ours.
 */

/** Namespaces owned by others even though a setting lives there: Node's and OpenTelemetry's SDK's own variables. */
const FOREIGN_NAMESPACES = ['NODE_', 'OTEL_', 'COMPOSE_'];

/**
 * Variables docker-compose.yml substitutes: an operator keeps them in the same `.env`, which Compose also
 * hands to the app (`env_file`). test/config-docs.unit.test.ts keeps this list equal to the file.
 */
export const COMPOSE_VARIABLES: readonly string[] = [
  'MOVIEDB_IMAGE',
  'MOVIEDB_ENV_FILE',
  'NODE_IMAGE',
  'EXTRA_CA_CERTS',
  'POSTGRES_IMAGE',
  'REDIS_IMAGE',
  'NGINX_IMAGE',
  'LB_ADDRESS',
  'LB_PORT',
];

/**
 * Kubernetes service links (and Docker's legacy links) name a variable after each service: a service
 * called `redis` or `mcp` sets REDIS_PORT=tcp://..., MCP_SERVICE_HOST, MCP_PORT_8080_TCP_ADDR, ...
 */
function isServiceLink(name: string, value: string | undefined): boolean {
  if (/_SERVICE_(HOST|PORT)(_[A-Z0-9_]+)?$/.test(name)) return true;
  if (/_PORT_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?$/.test(name)) return true;
  return /_PORT$/.test(name) && /^(tcp|udp|sctp):\/\//.test(value ?? '');
}

/** Edit distance with transpositions (optimal string alignment), so `SESION` is one step from `SESSION`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known setting closest to a name (the first of equals, in declaration order). */
export function closestSetting(name: string, known: readonly string[]): string | undefined {
  let closest: string | undefined;
  let distance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toUpperCase(), candidate);
    if (d < distance) [closest, distance] = [candidate, d];
  }
  return closest;
}

/** The namespaces of a list of settings: the first word of each name (HOST, PORT have none). */
function namespacesOf(known: readonly string[]): string[] {
  const prefixes = known.flatMap((name) => /^[A-Z0-9]+_/.exec(name)?.[0] ?? []);
  return [...new Set(prefixes)].filter((prefix) => !FOREIGN_NAMESPACES.includes(prefix));
}

/** One problem per variable that looks like a setting and is not one, each naming the closest setting. */
export function findUnknownSettings(
  env: Record<string, string | undefined>,
  known: readonly string[],
  envFileKeys: readonly string[] = [],
): string[] {
  const namespaces = namespacesOf(known);
  const candidates = new Set([
    ...Object.keys(env).filter((name) => namespaces.some((prefix) => name.startsWith(prefix))),
    ...envFileKeys,
  ]);
  return [...candidates]
    .filter((name) => !known.includes(name) && !COMPOSE_VARIABLES.includes(name))
    .filter((name) => !FOREIGN_NAMESPACES.some((prefix) => name.startsWith(prefix)))
    .filter((name) => !isServiceLink(name, env[name]))
    .map((name) => `${name}: not a setting; did you mean ${closestSetting(name, known)}?`);
}
