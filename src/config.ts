/**
 * The only reader of process.env (STYLE habit 2): every setting is declared, defaulted,
 * documented and validated here, and an invalid environment stops start-up with a readable list.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The project root (this file sits in src/ or dist/), so bundled files are found from any working directory. */
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

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
  /** Deepest selection nesting a GraphQL operation may have. */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(10),
  /** Largest estimated cost (fields weighted by list sizes) of one GraphQL operation. */
  GRAPHQL_MAX_COST: z.coerce.number().int().min(10).max(1000000).default(50000),
  /** Serve GraphiQL to browsers on GET /graphql. */
  GRAPHIQL: booleanFromEnv.default(true),
  /** `sessions` (Mcp-Session-Id, SSE responses) or `stateless` (a fresh server per request, JSON responses). */
  MCP_MODE: z.enum(['sessions', 'stateless']).default('sessions'),
  /** `optional`: anonymous callers reach public tools; `required`: a bearer token is needed on /mcp. */
  MCP_AUTH: z.enum(['optional', 'required']).default('optional'),
  /** The externally visible base URL (scheme://host[:port]); the canonical resource is <it>/mcp. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Origins allowed to call /mcp from a browser, comma-separated; same-origin is always allowed. */
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  /** Host header values allowed on /mcp, comma-separated; defaults to loopback names when bound to loopback. */
  MCP_ALLOWED_HOSTS: z.string().optional(),
  /** Most MCP sessions kept at once; a new one beyond this is answered 503. */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(100000).default(1000),
  /** A session unused for this long is closed. */
  MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86400).default(900),
  /** Default deadline of one tool call. */
  MCP_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120000).default(10000),
  /** Extra attempts for a read tool whose store failed transiently (writes are never retried). */
  MCP_READ_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** Consecutive store failures that open the circuit. */
  MCP_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** How long an open circuit refuses calls before one trial call. */
  MCP_CIRCUIT_OPEN_MS: z.coerce.number().int().min(100).max(600000).default(10000),
  /** An external OAuth 2.1 issuer whose tokens /mcp and /graphql accept too (its `iss`). */
  OAUTH_ISSUER: z.url().optional(),
  /** The issuer's JWKS URL; required with OAUTH_ISSUER. */
  OAUTH_JWKS_URL: z.url().optional(),
  /** Signature algorithms accepted from the issuer, comma-separated. */
  OAUTH_ALGORITHMS: z.string().default('RS256,ES256,PS256,EdDSA'),
});

/** The variables this server reads, as strings (what an environment holds). */
export type Env = Partial<Record<keyof typeof envSchema.shape, string>>;

/** Every setting's name, from the schema itself: docs (README table, .env.example) are checked against it. */
export const SETTING_NAMES = Object.keys(envSchema.shape) as (keyof typeof envSchema.shape)[];

/** Each setting's default as the schema gives it (absent for settings without one), field by field. */
export function settingDefaults(): Record<string, unknown> {
  return Object.fromEntries(
    SETTING_NAMES.flatMap((name) => {
      const parsed = envSchema.shape[name].safeParse(undefined);
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
  jwt: { secret?: string; issuer: string; audience: string; ttlSeconds: number };
  logLevel: string;
  logFormat: 'auto' | 'pretty' | 'json';
  bodyLimitBytes: number;
  graphql: { maxDepth: number; maxCost: number; graphiql: boolean };
  mcp: {
    mode: 'sessions' | 'stateless';
    auth: 'optional' | 'required';
    publicUrl?: string;
    allowedOrigins: string[];
    allowedHosts?: string[];
    maxSessions: number;
    sessionIdleMs: number;
    toolTimeoutMs: number;
    readRetries: number;
    circuitFailures: number;
    circuitOpenMs: number;
  };
  oauth?: { issuer: string; jwksUrl: string; algorithms: string[] };
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A postgres:// URL from parts; user, password and name are percent-encoded, so `@`, `/`, `:` or `#` are safe. */
function databaseUrlFromParts(e: {
  DATABASE_HOST?: string;
  DATABASE_PORT: number;
  DATABASE_USER: string;
  DATABASE_PASSWORD?: string;
  DATABASE_NAME: string;
}): string {
  const host = e.DATABASE_HOST?.includes(':') ? `[${e.DATABASE_HOST}]` : e.DATABASE_HOST;
  const auth =
    encodeURIComponent(e.DATABASE_USER) +
    (e.DATABASE_PASSWORD === undefined ? '' : `:${encodeURIComponent(e.DATABASE_PASSWORD)}`);
  return `postgres://${auth}@${host}:${e.DATABASE_PORT}/${encodeURIComponent(e.DATABASE_NAME)}`;
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
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir: e.DATA_DIR,
    database: {
      url: e.DATABASE_URL ?? (e.DATABASE_HOST ? databaseUrlFromParts(e) : undefined),
      schema: e.DATABASE_SCHEMA,
      poolSize: e.DATABASE_POOL_SIZE,
    },
    seedFile: e.SEED_FILE,
    operationsDir: e.OPERATIONS_DIR,
    jwt: {
      secret: e.JWT_SECRET,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
      ttlSeconds: e.JWT_TTL_SECONDS,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    graphql: { maxDepth: e.GRAPHQL_MAX_DEPTH, maxCost: e.GRAPHQL_MAX_COST, graphiql: e.GRAPHIQL },
    mcp: {
      mode: e.MCP_MODE,
      auth: e.MCP_AUTH,
      publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
      allowedOrigins: list(e.MCP_ALLOWED_ORIGINS),
      allowedHosts: e.MCP_ALLOWED_HOSTS ? list(e.MCP_ALLOWED_HOSTS) : undefined,
      maxSessions: e.MCP_MAX_SESSIONS,
      sessionIdleMs: e.MCP_SESSION_IDLE_SECONDS * 1000,
      toolTimeoutMs: e.MCP_TOOL_TIMEOUT_MS,
      readRetries: e.MCP_READ_RETRIES,
      circuitFailures: e.MCP_CIRCUIT_FAILURES,
      circuitOpenMs: e.MCP_CIRCUIT_OPEN_MS,
    },
    oauth:
      e.OAUTH_ISSUER && e.OAUTH_JWKS_URL
        ? { issuer: e.OAUTH_ISSUER, jwksUrl: e.OAUTH_JWKS_URL, algorithms: list(e.OAUTH_ALGORITHMS) }
        : undefined,
  };
}
