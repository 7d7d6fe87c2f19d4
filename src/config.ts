/**
 * The only reader of process.env. One zod schema is the configuration: each setting is declared once, with
 * its variable, default, validation and description; `Config` is inferred from it, and
 * docs/configuration.md and .env.example are generated from it (`npm run config:docs`). An invalid
 * environment stops start-up with every problem listed at once.
 */
import { z } from 'zod';
import { databaseSettings } from './config/database-settings.js';
import { graphqlSettings } from './config/graphql-settings.js';
import { jwtSettings } from './config/jwt-settings.js';
import { mcpSettings } from './config/mcp-settings.js';
import { oauthSettings } from './config/oauth-settings.js';
import { operationsSettings } from './config/operations-settings.js';
import { rateLimitSettings } from './config/rate-limit-settings.js';
import { redisSettings } from './config/redis-settings.js';
import { resilienceSettings } from './config/resilience-settings.js';
import { resultCacheSettings } from './config/result-cache-settings.js';
import { int, section, setting, settingsOf, type SettingNames } from './config/setting.js';
import { tracingSettings } from './config/tracing-settings.js';
import { findUnknownSettings } from './config/unknown-settings.js';
import { isLoopbackHost } from './http/is-loopback-host.js';
import { parseTrustProxy } from './http/parse-trust-proxy.js';

const log = section(
  'Logs',
  z.object({
    level: setting(
      'LOG_LEVEL',
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      'pino level: `fatal`, `error`, `warn`, `info`, `debug` (adds health, readiness and metrics probes), `trace`, `silent`.',
    ),
    format: setting(
      'LOG_FORMAT',
      z.enum(['auto', 'pretty', 'json']).default('auto'),
      '`auto`: readable lines when stdout is a terminal, JSON lines otherwise; `pretty` or `json` force one.',
    ),
  }),
);

const body = section(
  'Request bodies',
  z.object({
    limitBytes: setting(
      'BODY_LIMIT_BYTES',
      int(1024, 10485760, 102400),
      'Largest accepted request body, in bytes.',
    ),
    lingerMs: setting(
      'BODY_LINGER_MS',
      int(0, 60000, 5000),
      "How long the rest of a refused body (over the limit, say) is read and discarded before the connection is cut, so that clients still sending (Node's fetch) read the answer instead of a reset.",
    ),
    lingerBytes: setting(
      'BODY_LINGER_BYTES',
      int(0, 1073741824, 33554432),
      'How many bytes of a refused body are read and discarded, at most, before the connection is cut.',
    ),
  }),
);

const shutdown = section(
  'Shutdown',
  z.object({
    delayMs: setting(
      'SHUTDOWN_DELAY_MS',
      int(0, 300000, 0),
      'On SIGTERM, how long (ms) /readyz reports draining while everything is still served (load balancer pre-stop).',
    ),
    graceMs: setting(
      'SHUTDOWN_GRACE_MS',
      int(0, 600000, 10000),
      'After the pre-stop delay, how long (ms) requests already received may take to finish before they are cut.',
    ),
  }),
);

/** The configuration: every setting, grouped by area; `Config` is what it parses to. */
const configSchema = section(
  'Server',
  z.object({
    nodeEnv: setting(
      'NODE_ENV',
      z.enum(['development', 'production', 'test']).default('development'),
      '`production` requires `JWT_SECRET` and hides development conveniences.',
    ),
    host: setting(
      'HOST',
      z.string().min(1).default('127.0.0.1'),
      'Interface to bind; 127.0.0.1 keeps a laptop install private (0.0.0.0 in a container).',
    ),
    port: setting('PORT', int(0, 65535, 8080), 'TCP port; 0 picks a free one (tests).'),
    trustProxy: setting(
      'TRUST_PROXY',
      z.string().default('off'),
      'Which proxies may name the client address in X-Forwarded-For (Express `trust proxy`): `off` (the socket address), a hop count, or a comma-separated list of addresses, CIDR ranges and the names loopback, linklocal, uniquelocal.',
    ).transform((value, ctx) => {
      const trust = parseTrustProxy(value);
      if (typeof trust !== 'string') return trust;
      ctx.addIssue({ code: 'custom', message: trust });
      return z.NEVER;
    }),
    log,
    body,
    database: databaseSettings,
    jwt: jwtSettings,
    graphql: graphqlSettings,
    operations: operationsSettings,
    mcp: mcpSettings,
    resilience: resilienceSettings,
    shutdown,
    oauth: oauthSettings,
    rateLimits: rateLimitSettings,
    redis: redisSettings,
    tracing: tracingSettings,
    resultCache: resultCacheSettings,
  }),
).transform(({ operations: { dir, watch }, ...rest }) => ({
  ...rest,
  operations: { dir, watch: watch ?? rest.nodeEnv === 'development' },
}));

export type Config = z.output<typeof configSchema>;
export type TracingConfig = NonNullable<Config['tracing']>;
export type SettingName = SettingNames<typeof configSchema>;
/** The variables this server reads, as strings (what an environment holds). */
export type Env = Partial<Record<SettingName, string>>;

/** Every setting in declaration order, with its variable, path and docs: what the generated pages show. */
export const SETTINGS = settingsOf(configSchema);
export const SETTING_NAMES = SETTINGS.map((entry) => entry.env) as SettingName[];

/** Rules across settings, on the variables as given, so they are reported beside any invalid value. */
const RULES: ((s: Env) => string | undefined)[] = [
  (s) =>
    s.NODE_ENV === 'production' && !s.JWT_SECRET
      ? 'JWT_SECRET: required when NODE_ENV=production (at least 32 characters)'
      : undefined,
  (s) =>
    s.DATABASE_URL && s.DATABASE_HOST
      ? 'DATABASE_URL and DATABASE_HOST: set one or the other, not both'
      : undefined,
  (s) =>
    Boolean(s.OAUTH_ISSUER) !== Boolean(s.OAUTH_JWKS_URL)
      ? 'OAUTH_ISSUER and OAUTH_JWKS_URL: set both or neither'
      : undefined,
  (s) =>
    s.OAUTH_ISSUER && !s.PUBLIC_URL
      ? 'PUBLIC_URL: required with OAUTH_ISSUER (tokens must name <PUBLIC_URL>/mcp as audience)'
      : undefined,
  // HOST's default is a loopback address.
  (s) =>
    s.HOST && !isLoopbackHost(s.HOST) && !s.PUBLIC_URL && !s.MCP_ALLOWED_HOSTS
      ? `PUBLIC_URL or MCP_ALLOWED_HOSTS: required when HOST (${s.HOST}) is not a loopback address, so /mcp ` +
        'accepts only the Host names it is really reached by (DNS-rebinding protection)'
      : undefined,
];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** Keys of the `.env` file that was read: each must be a setting. */
  envFileKeys?: readonly string[];
  /** Lines of the `.env` file that could not be read as settings. */
  envFileProblems?: readonly string[];
}

/** Reads and validates the environment; throws ConfigError listing every problem at once. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  options: LoadConfigOptions = {},
): Config {
  const given: Env = {};
  const input: Record<string, unknown> = {};
  const envByPath = new Map<string, string>();
  for (const entry of SETTINGS) {
    envByPath.set(entry.path.join('.'), entry.env);
    let at = input;
    for (const key of entry.path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    const value = env[entry.env];
    // An empty variable is an unset one (compose files blank a setting that way).
    if (value === undefined || value === '') continue;
    given[entry.env as SettingName] = value;
    at[entry.path.at(-1)!] = value;
  }
  const parsed = configSchema.safeParse(input);
  const problems = [
    ...(options.envFileProblems ?? []),
    ...findUnknownSettings(env, SETTING_NAMES, options.envFileKeys),
    ...(parsed.error?.issues ?? []).map(
      (issue) => `${envByPath.get(issue.path.join('.')) ?? issue.path.join('.')}: ${issue.message}`,
    ),
    ...RULES.flatMap((rule) => rule(given) ?? []),
  ];
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}
