/**
 * The only reader of process.env: every setting is declared, defaulted,
 * documented and validated here, and an invalid environment stops start-up with a readable list.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The project root (this file sits in src/ or dist/), so bundled files are found from any working directory. */
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** JWS algorithms whose verification key is public (RFC 7518, RFC 8037): all an external issuer may use. */
const ASYMMETRIC_JWS_ALGORITHMS = [
  ...['RS', 'PS', 'ES'].flatMap((family) => ['256', '384', '512'].map((bits) => `${family}${bits}`)),
  'EdDSA',
  'Ed25519',
];

const envSchema = z.object({
  /** `production` requires JWT_SECRET and hides development conveniences. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Interface to bind; 127.0.0.1 keeps a laptop install private. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** TCP port; 0 picks a free one (tests). */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Folder for the embedded SQLite database and the generated development secret. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** postgres://… switches storage from embedded SQLite to PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** PostgreSQL schema to use (tests isolate runs with it). */
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .optional(),
  /** PostgreSQL server host: with the DATABASE_* parts below, an alternative to DATABASE_URL for any password. */
  DATABASE_HOST: z.string().min(1).optional(),
  /** PostgreSQL server port (with DATABASE_HOST). */
  DATABASE_PORT: z.coerce.number().int().min(1).max(65535).default(5432),
  /** PostgreSQL user (with DATABASE_HOST). */
  DATABASE_USER: z.string().min(1).default('postgres'),
  /** PostgreSQL password (with DATABASE_HOST); any characters, encoded for the URL here. */
  DATABASE_PASSWORD: z.string().optional(),
  /** PostgreSQL database name (with DATABASE_HOST). */
  DATABASE_NAME: z.string().min(1).default('moviedb'),
  /** Upper bound on PostgreSQL connections per process. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Folder of curated operations (one tool per .graphql file, settings in tools.json). */
  OPERATIONS_DIR: z.string().min(1).default(path.join(PROJECT_ROOT, 'operations')),
  /**
   * Watch OPERATIONS_DIR and reload the catalogue when a file changes (a broken change is logged and the
   * running catalogue kept). Unset: on when NODE_ENV=development, off otherwise.
   */
  OPERATIONS_WATCH: booleanFromEnv.optional(),
  /** Path of the seed catalogue loaded into an empty database. */
  SEED_FILE: z
    .string()
    .min(1)
    .default(path.join(PROJECT_ROOT, 'seed', 'moviedb-seed.json')),
  /** HS256 key for the tokens this server issues; at least 32 characters. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** `iss` of issued tokens, required on verification. */
  JWT_ISSUER: z.string().min(1).default('moviedb-mcp'),
  /** `aud` of issued tokens, required on verification. */
  JWT_AUDIENCE: z.string().min(1).default('moviedb-mcp'),
  /** Lifetime of issued tokens in seconds (24 h). */
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(604800).default(86400),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise; `pretty` or `json` force one. */
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  /** Largest accepted request body, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10485760).default(102400),
  /**
   * How long the rest of a refused body (over the limit, say) is read and discarded before the connection
   * is cut, so that clients still sending (Node's fetch) read the answer instead of a reset.
   */
  BODY_LINGER_MS: z.coerce.number().int().min(0).max(60000).default(5000),
  /** How many bytes of a refused body are read and discarded, at most, before the connection is cut. */
  BODY_LINGER_BYTES: z.coerce.number().int().min(0).max(1073741824).default(33554432),
  /** Deepest selection nesting a GraphQL operation may have. */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(10),
  /** Largest estimated cost (fields weighted by list sizes) of one GraphQL operation. */
  GRAPHQL_MAX_COST: z.coerce.number().int().min(10).max(1000000).default(50000),
  /** Most response names (aliases) one field may have in one selection set, fragments included. */
  GRAPHQL_MAX_FIELD_ALIASES: z.coerce.number().int().min(1).max(1000).default(15),
  /** Serve GraphiQL to browsers on GET /graphql. */
  GRAPHIQL: booleanFromEnv.default(true),
  /**
   * Run operations compiled by graphql-jit where that is exact (src/graphql/compile-operation.ts):
   * curated operations on their first run; `repeated` also a client's document from its second run
   * (within the two bounds below), `curated` only curated ones, `always` everything on its first run
   * (tests), `off` nothing.
   */
  GRAPHQL_JIT: z.enum(['repeated', 'curated', 'always', 'off']).default('repeated'),
  /** Largest expanded field count (fragments spread out) of a client document that is compiled. */
  GRAPHQL_JIT_MAX_FIELDS: z.coerce.number().int().min(0).max(100000).default(200),
  /** Expanded fields of client documents one principal may have compiled per minute (the process: ten times it). */
  GRAPHQL_JIT_FIELDS_PER_MINUTE: z.coerce.number().int().min(0).max(100000000).default(1000),
  /** `sessions` (Mcp-Session-Id, SSE responses) or `stateless` (a fresh server per request, JSON responses). */
  MCP_MODE: z.enum(['sessions', 'stateless']).default('sessions'),
  /** `optional`: anonymous callers reach public tools; `required`: a bearer token is needed on /mcp. */
  MCP_AUTH: z.enum(['optional', 'required']).default('optional'),
  /** `caller`: tools/list shows the tools the caller can call (role and scopes); `all`: every tool. */
  MCP_TOOLS_VISIBILITY: z.enum(['caller', 'all']).default('caller'),
  /** The externally visible base URL (scheme://host[:port]); the canonical resource is <it>/mcp. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Origins allowed to call /mcp from a browser, comma-separated; same-origin is always allowed. */
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  /** Host header values allowed on /mcp and /graphql, comma-separated; defaults to loopback names when bound to loopback. */
  MCP_ALLOWED_HOSTS: z.string().optional(),
  /** Most MCP sessions kept at once; beyond it the least recently used idle one is closed (503 if all are busy). */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(100000).default(1000),
  /** A session unused for this long is closed. */
  MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86400).default(900),
  /** How long a cut tools/call response stream of a 2025 session can be resumed (GET + Last-Event-ID). */
  MCP_RESUME_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * How long a 2025 session's tools/call waits for its user's answer to a confirmation asked by
   * elicitation; then it acts on nothing. As long as a two-step confirmationToken lives by default.
   */
  MCP_ELICIT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  /**
   * `on`: a plain tools/call (stateless 2025 and 2026-07-28; no progressToken) is answered without the
   * SDK's transport round trip, with the same answer; `off`: every request goes through the SDK.
   */
  MCP_DIRECT_TOOL_CALLS: z.enum(['on', 'off']).default('on'),
  /** Default deadline of one tool call (per tool: `timeoutMs` in tools.json). */
  MCP_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120000).default(10000),
  /**
   * Longest structuredContent of a tool answer, in characters of JSON (the text block repeats it): a list
   * answer over it is cut at a page boundary with a `truncated` marker naming the arguments for the rest.
   */
  MCP_RESULT_MAX_CHARS: z.coerce.number().int().min(500).max(10000000).default(40000),
  // Deadlines and recovery: one policy for /graphql and every tool (src/store/store-policy.ts).
  /** Deadline of one /graphql operation; past it the answer is a TIMEOUT error and the work is abandoned. */
  GRAPHQL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120000).default(10000),
  /** PostgreSQL statement_timeout (and idle-in-transaction timeout): no frozen query holds a connection longer. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600000).default(15000),
  /** Extra attempts for a read whose store failed transiently (writes are never retried). */
  STORE_READ_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** Consecutive store connection failures that open the circuit (timeouts do not count). */
  STORE_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** While the circuit is open, the database is pinged this often; the first answer closes it. */
  STORE_CIRCUIT_PROBE_MS: z.coerce.number().int().min(50).max(60000).default(500),
  /** An external OAuth 2.1 issuer whose tokens /mcp and /graphql accept too (its `iss`). */
  OAUTH_ISSUER: z.url().optional(),
  /** The issuer's JWKS URL; required with OAUTH_ISSUER. */
  OAUTH_JWKS_URL: z.url().optional(),
  /**
   * Signature algorithms accepted from the issuer, comma-separated. Asymmetric ones only: an HMAC
   * algorithm would make the issuer's published key a signing secret (HS/RS confusion), `none` no check.
   */
  OAUTH_ALGORITHMS: z
    .string()
    .default('RS256,ES256,PS256,EdDSA')
    .refine(
      (value) => {
        const names = list(value);
        return names.length > 0 && names.every((name) => ASYMMETRIC_JWS_ALGORITHMS.includes(name));
      },
      { message: 'must list asymmetric JWS algorithms only (RS*, PS*, ES*, EdDSA, Ed25519)' },
    ),

  // Abuse limits (docs/security.md, Abuse limits). Each window is fixed and starts with a key's first count.
  /** `off` turns every rate limit off (benchmarks; a deployment whose gateway limits instead). */
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  /** Operations (GraphQL requests and tool calls) a signed-in user may run per operations window. */
  RATE_LIMIT_USER_OPERATIONS: z.coerce.number().int().min(1).max(1000000).default(600),
  /** Operations an anonymous client address (an IPv6 /64) may run per operations window. */
  RATE_LIMIT_ANON_OPERATIONS: z.coerce.number().int().min(1).max(1000000).default(120),
  /**
   * Request points a signed-in user may spend per operations window on requests that execute nothing:
   * every MCP message (tools/list, resources, prompts, ping, initialize, ...) and every GraphQL document
   * refused by parsing or validation, each weighted by its cost (src/limits/request-weights.ts).
   */
  RATE_LIMIT_USER_REQUESTS: z.coerce.number().int().min(1).max(10000000).default(3000),
  /** Request points an anonymous client address (an IPv6 /64) may spend per operations window. */
  RATE_LIMIT_ANON_REQUESTS: z.coerce.number().int().min(1).max(10000000).default(600),
  /** Length of the window of the operation and request limits, in seconds. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86400).default(60),
  /** Failed logins one account name (known or not) may take per login window. */
  LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).max(100000).default(10),
  /** Failed logins one client address may make per login window, whatever the accounts. */
  LOGIN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(10),
  /** Length of the login-failure window, in seconds (15 minutes). */
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86400).default(900),
  /** Registration attempts one client address may make per registration window. */
  REGISTRATIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(5),
  /** Length of the registration window, in seconds (an hour). */
  REGISTRATION_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86400).default(3600),
  /**
   * Which proxies may name the client address in X-Forwarded-For (Express `trust proxy`): `off` (the
   * socket address), a hop count, or a comma-separated list of addresses, CIDR ranges and the names
   * loopback, linklocal, uniquelocal.
   */
  TRUST_PROXY: z
    .string()
    .default('off')
    .transform((value, ctx) => {
      const trust = parseTrustProxy(value);
      if (typeof trust !== 'string') return trust;
      ctx.addIssue({ code: 'custom', message: trust });
      return z.NEVER;
    }),
  // Sessions, transport bounds and shutdown.
  /** Most MCP sessions one signed-in user may hold at once (capped by MCP_MAX_SESSIONS). */
  MCP_MAX_SESSIONS_PER_USER: z.coerce.number().int().min(1).max(100000).default(20),
  /** Most MCP sessions anonymous callers from one client address may hold at once (capped by MCP_MAX_SESSIONS). */
  MCP_MAX_SESSIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100000).default(10),
  /** Deepest nesting of a JSON-RPC message's params (tool arguments included); deeper is -32602. */
  MCP_MAX_ARGUMENT_DEPTH: z.coerce.number().int().min(4).max(1000).default(64),
  /** On SIGTERM, how long /readyz reports draining while everything is still served (load balancer pre-stop). */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(300000).default(0),
  /** After the pre-stop delay, how long requests already received may take to finish before they are cut. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600000).default(10000),
  // The result cache of shared public reads (src/graphql/result-cache.ts).
  /** Size of the result cache in MiB (results as JSON); 0 turns it off. */
  RESULT_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
  /** Longest a cached result is served; bounds staleness where another replica's write cannot reach us. */
  RESULT_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86400).default(60),
  // Shared state: without REDIS_URL every counter and session stays in the process.
  /** redis:// or rediss:// URL: rate-limit counters and 2025 MCP sessions, shared by every replica using it. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Namespace of this deployment's keys in Redis, so several deployments can share one server. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, `_`, `.` or `-`')
    .default('moviedb'),
  // Traces: without an endpoint nothing of OpenTelemetry's SDK is even loaded.
  /** OTLP/HTTP collector base URL; spans go to <it>/v1/traces. Unset: no tracing at all. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Wire format of the OTLP export: `http/protobuf` (the OTLP default) or `http/json`. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      message: 'must be http/protobuf or http/json (grpc is not supported)',
    })
    .default('http/protobuf'),
  /** `service.name` of every span. */
  OTEL_SERVICE_NAME: z.string().min(1).default('moviedb-mcp'),
  /** Longest time, in ms, a finished span waits before it is sent (a full batch, and shutdown, send at once). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(600000).default(5000),
});

/** The variables this server reads, as strings (what an environment holds). */
export type Env = Partial<Record<keyof typeof envSchema.shape, string>>;

/** Every setting's name, from the schema itself: docs (docs/configuration.md, .env.example) are checked against it. */
export const SETTING_NAMES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

/**
 * Each setting's default as the schema gives it (absent for settings without one), field by field. A
 * setting parsed by a transform after its default (TRUST_PROXY) shows the default as written, not parsed.
 */
export function settingDefaults(): Record<string, unknown> {
  return Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const field = envSchema.shape[name];
      const written = field instanceof z.ZodPipe && field.in instanceof z.ZodDefault ? field.in : field;
      const parsed = written.safeParse(undefined);
      return parsed.success && parsed.data !== undefined ? [[name, parsed.data]] : [];
    }),
  );
}

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  dataDir: string;
  database: { url?: string; schema?: string; poolSize: number };
  seedFile: string;
  operationsDir: string;
  /** Reload the catalogue when a file in operationsDir changes. */
  operationsWatch: boolean;
  jwt: { secret?: string; issuer: string; audience: string; ttlSeconds: number };
  logLevel: string;
  logFormat: 'auto' | 'pretty' | 'json';
  bodyLimitBytes: number;
  /** The bounds on reading and discarding a refused body (BODY_LINGER_MS, BODY_LINGER_BYTES). */
  bodyLinger: { ms: number; bytes: number };
  graphql: {
    maxDepth: number;
    maxCost: number;
    maxFieldAliases: number;
    graphiql: boolean;
    /** graphql-jit: when to compile, and the bounds on compiling a client's document. */
    compiler: { jit: 'repeated' | 'curated' | 'always' | 'off'; maxFields: number; fieldsPerMinute: number };
  };
  mcp: {
    mode: 'sessions' | 'stateless';
    auth: 'optional' | 'required';
    toolsVisibility: 'caller' | 'all';
    publicUrl?: string;
    allowedOrigins: string[];
    allowedHosts?: string[];
    maxSessions: number;
    sessionIdleMs: number;
    resumeWindowMs: number;
    elicitationTimeoutMs: number;
    toolTimeoutMs: number;
    resultMaxChars: number;
    maxSessionsPerUser: number;
    maxSessionsPerAddress: number;
    maxArgumentDepth: number;
    /** Answer plain tools/call requests on the lean path (MCP_DIRECT_TOOL_CALLS). */
    directToolCalls: boolean;
  };
  /** Deadlines, retries and the circuit shared by /graphql and the tools. */
  resilience: {
    graphqlTimeoutMs: number;
    statementTimeoutMs: number;
    readRetries: number;
    circuitFailures: number;
    circuitProbeMs: number;
  };
  shutdown: { delayMs: number; graceMs: number };
  oauth?: { issuer: string; jwksUrl: string; algorithms: string[] };
  rateLimits: {
    enabled: boolean;
    userOperations: number;
    anonymousOperations: number;
    /** Points of requests that execute nothing, per user and per anonymous address. */
    userRequests: number;
    anonymousRequests: number;
    operationsWindowSeconds: number;
    loginFailuresPerAccount: number;
    loginFailuresPerAddress: number;
    loginWindowSeconds: number;
    registrationsPerAddress: number;
    registrationWindowSeconds: number;
  };
  /** Express's `trust proxy`: false (the socket address), a hop count, or trusted addresses and ranges. */
  trustProxy: false | number | string[];
  /** Shared state: without a url, everything stays in the process. */
  redis: { url?: string; keyPrefix: string };
  /** OpenTelemetry traces; undefined (the default) when no OTLP endpoint is configured. */
  tracing?: TracingConfig;
  /** The result cache of shared public reads; absent when turned off. */
  resultCache?: { maxBytes: number; ttlMs: number };
}

export interface TracingConfig {
  /** The OTLP base URL; traces are posted to `<endpoint>/v1/traces`. */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  serviceName: string;
  scheduleDelayMs: number;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY in Express's terms; a string naming what is wrong with it otherwise. */
function parseTrustProxy(value: string): Config['trustProxy'] | string {
  const text = value.trim().toLowerCase();
  if (text === 'off' || text === 'false' || text === '0') return false;
  if (/^\d+$/.test(text)) return Number(text) <= 10 ? Number(text) : 'a hop count must be at most 10';
  if (text === 'true' || text === 'on' || text === 'all') {
    // Trusting every hop would let any client choose the address its limits are counted under.
    return 'trusting every proxy lets clients pick their own address: give a hop count or the proxies';
  }
  const entries = list(text);
  const bad = entries.filter((entry) => {
    if (NAMED_RANGES.includes(entry)) return false;
    const [address = '', prefix, ...rest] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || rest.length > 0) return true;
    if (prefix === undefined) return false;
    if (/^\d+$/.test(prefix)) return Number(prefix) > (version === 4 ? 32 : 128);
    return !(version === 4 && isIP(prefix) === 4);
  });
  if (entries.length === 0 || bad.length > 0) {
    return `not a hop count, address, CIDR range or one of ${NAMED_RANGES.join(', ')}: ${bad.join(', ') || value}`;
  }
  return entries;
}

/** The loopback names /mcp accepts as Host (and, on a loopback bind, as Origin) without an allowlist. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** Names and addresses that only this machine can reach: binding them needs no Host allowlist. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** A host as it is written in a URL: an IPv6 address goes in brackets (RFC 3986 section 3.2.2). */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A postgres:// URL from parts; user, password and name are percent-encoded, so `@`, `/`, `:` or `#` are safe. */
function databaseUrlFromParts(
  host: string,
  e: {
    DATABASE_PORT: number;
    DATABASE_USER: string;
    DATABASE_PASSWORD?: string;
    DATABASE_NAME: string;
  },
): string {
  const auth =
    encodeURIComponent(e.DATABASE_USER) +
    (e.DATABASE_PASSWORD === undefined ? '' : `:${encodeURIComponent(e.DATABASE_PASSWORD)}`);
  return `postgres://${auth}@${urlHost(host)}:${e.DATABASE_PORT}/${encodeURIComponent(e.DATABASE_NAME)}`;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; throws ConfigError listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(envSchema.shape).flatMap((key) => {
      const value = env[key];
      return value === undefined || value === '' ? [] : [[key, value]];
    }),
  );
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && !e.JWT_SECRET) {
    throw new ConfigError(['JWT_SECRET: required when NODE_ENV=production (at least 32 characters)']);
  }
  if (e.DATABASE_URL && e.DATABASE_HOST) {
    throw new ConfigError(['DATABASE_URL and DATABASE_HOST: set one or the other, not both']);
  }
  if (Boolean(e.OAUTH_ISSUER) !== Boolean(e.OAUTH_JWKS_URL)) {
    throw new ConfigError(['OAUTH_ISSUER and OAUTH_JWKS_URL: set both or neither']);
  }
  if (e.OAUTH_ISSUER && !e.PUBLIC_URL) {
    throw new ConfigError([
      'PUBLIC_URL: required with OAUTH_ISSUER (tokens must name <PUBLIC_URL>/mcp as audience)',
    ]);
  }
  if (!isLoopbackHost(e.HOST) && !e.PUBLIC_URL && !e.MCP_ALLOWED_HOSTS) {
    throw new ConfigError([
      `PUBLIC_URL or MCP_ALLOWED_HOSTS: required when HOST (${e.HOST}) is not a loopback address, so /mcp ` +
        'accepts only the Host names it is really reached by (DNS-rebinding protection)',
    ]);
  }
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir: e.DATA_DIR,
    database: {
      url: e.DATABASE_URL ?? (e.DATABASE_HOST ? databaseUrlFromParts(e.DATABASE_HOST, e) : undefined),
      schema: e.DATABASE_SCHEMA,
      poolSize: e.DATABASE_POOL_SIZE,
    },
    seedFile: e.SEED_FILE,
    operationsDir: e.OPERATIONS_DIR,
    operationsWatch: e.OPERATIONS_WATCH ?? e.NODE_ENV === 'development',
    jwt: {
      secret: e.JWT_SECRET,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      ttlSeconds: e.JWT_TTL_SECONDS,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    bodyLinger: { ms: e.BODY_LINGER_MS, bytes: e.BODY_LINGER_BYTES },
    graphql: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxCost: e.GRAPHQL_MAX_COST,
      maxFieldAliases: e.GRAPHQL_MAX_FIELD_ALIASES,
      graphiql: e.GRAPHIQL,
      compiler: {
        jit: e.GRAPHQL_JIT,
        maxFields: e.GRAPHQL_JIT_MAX_FIELDS,
        fieldsPerMinute: e.GRAPHQL_JIT_FIELDS_PER_MINUTE,
      },
    },
    mcp: {
      mode: e.MCP_MODE,
      auth: e.MCP_AUTH,
      toolsVisibility: e.MCP_TOOLS_VISIBILITY,
      publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
      allowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
      allowedHosts: e.MCP_ALLOWED_HOSTS ? list(e.MCP_ALLOWED_HOSTS) : undefined,
      maxSessions: e.MCP_MAX_SESSIONS,
      sessionIdleMs: e.MCP_SESSION_IDLE_SECONDS * 1000,
      resumeWindowMs: e.MCP_RESUME_WINDOW_SECONDS * 1000,
      elicitationTimeoutMs: e.MCP_ELICIT_TIMEOUT_SECONDS * 1000,
      toolTimeoutMs: e.MCP_TOOL_TIMEOUT_MS,
      resultMaxChars: e.MCP_RESULT_MAX_CHARS,
      // A per-principal cap above the global one would be no cap at all.
      maxSessionsPerUser: Math.min(e.MCP_MAX_SESSIONS_PER_USER, e.MCP_MAX_SESSIONS),
      maxSessionsPerAddress: Math.min(e.MCP_MAX_SESSIONS_PER_ADDRESS, e.MCP_MAX_SESSIONS),
      maxArgumentDepth: e.MCP_MAX_ARGUMENT_DEPTH,
      directToolCalls: e.MCP_DIRECT_TOOL_CALLS === 'on',
    },
    resilience: {
      graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      readRetries: e.STORE_READ_RETRIES,
      circuitFailures: e.STORE_CIRCUIT_FAILURES,
      circuitProbeMs: e.STORE_CIRCUIT_PROBE_MS,
    },
    shutdown: { delayMs: e.SHUTDOWN_DELAY_MS, graceMs: e.SHUTDOWN_GRACE_MS },
    oauth:
      e.OAUTH_ISSUER && e.OAUTH_JWKS_URL
        ? { issuer: e.OAUTH_ISSUER, jwksUrl: e.OAUTH_JWKS_URL, algorithms: list(e.OAUTH_ALGORITHMS) }
        : undefined,
    rateLimits: {
      enabled: e.RATE_LIMITS === 'on',
      userOperations: e.RATE_LIMIT_USER_OPERATIONS,
      anonymousOperations: e.RATE_LIMIT_ANON_OPERATIONS,
      userRequests: e.RATE_LIMIT_USER_REQUESTS,
      anonymousRequests: e.RATE_LIMIT_ANON_REQUESTS,
      operationsWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      loginFailuresPerAccount: e.LOGIN_FAILURES_PER_ACCOUNT,
      loginFailuresPerAddress: e.LOGIN_FAILURES_PER_ADDRESS,
      loginWindowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
      registrationsPerAddress: e.REGISTRATIONS_PER_ADDRESS,
      registrationWindowSeconds: e.REGISTRATION_WINDOW_SECONDS,
    },
    trustProxy: e.TRUST_PROXY,
    redis: { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX },
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
          protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
          serviceName: e.OTEL_SERVICE_NAME,
          scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
        }
      : undefined,
    resultCache:
      e.RESULT_CACHE_MB > 0
        ? { maxBytes: e.RESULT_CACHE_MB * 1024 * 1024, ttlMs: e.RESULT_CACHE_TTL_SECONDS * 1000 }
        : undefined,
  };
}
