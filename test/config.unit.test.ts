import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig, SETTING_NAMES } from '../src/config.js';
import { section, setting, settingsOf } from '../src/config/setting.js';
import { closestSetting, editDistance, findUnknownSettings } from '../src/config/unknown-settings.js';

function problemsOf(env: Record<string, string>, envFileKeys?: string[]): string[] {
  try {
    loadConfig(env, { envFileKeys });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8080 with SQLite in ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      database: { url: undefined, dataDir: './data' },
    });
  });

  it('refuses production without JWT_SECRET', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /JWT_SECRET: required when NODE_ENV=production/,
    );
  });

  it('lists every invalid variable at once with a readable reason', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', JWT_SECRET: 'short' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/DATABASE_URL: must be a postgres/);
      expect(problems).toMatch(/JWT_SECRET: must be at least 32 characters/);
    }
  });

  it('an external issuer may use asymmetric algorithms only: HS256 (key confusion) or none is refused', () => {
    const issuer = {
      OAUTH_ISSUER: 'https://issuer.example',
      OAUTH_JWKS_URL: 'https://issuer.example/jwks',
      PUBLIC_URL: 'https://api.example',
    };
    expect(loadConfig({ ...issuer, OAUTH_ALGORITHMS: 'RS256, ES384,EdDSA' }).oauth?.algorithms).toEqual([
      'RS256',
      'ES384',
      'EdDSA',
    ]);
    for (const algorithms of ['HS256', 'RS256,HS512', 'none', 'RS256,none', ' , ']) {
      expect(() => loadConfig({ ...issuer, OAUTH_ALGORITHMS: algorithms }), algorithms).toThrow(
        /OAUTH_ALGORITHMS: must list asymmetric JWS algorithms only/,
      );
    }
  });

  it('deadlines and recovery have defaults and bounds, one block for /graphql and the tools', () => {
    expect(loadConfig({}).resilience).toEqual({
      graphqlTimeoutMs: 10000,
      statementTimeoutMs: 15000,
      readRetries: 2,
      circuitFailures: 5,
      circuitProbeMs: 500,
    });
    expect(() => loadConfig({ GRAPHQL_TIMEOUT_MS: '0', STORE_CIRCUIT_PROBE_MS: 'soon' })).toThrow(
      /GRAPHQL_TIMEOUT_MS[\s\S]*STORE_CIRCUIT_PROBE_MS/,
    );
  });
});

describe('binding a public address', () => {
  it('refuses to start without PUBLIC_URL or MCP_ALLOWED_HOSTS, naming both', () => {
    for (const HOST of ['0.0.0.0', '::', '192.168.1.20', 'moviedb.internal']) {
      expect(() => loadConfig({ HOST }), HOST).toThrow(
        /PUBLIC_URL or MCP_ALLOWED_HOSTS: required when HOST \(.+\) is not a loopback address/,
      );
    }
  });

  it('starts with either of them, and on loopback without them', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://movies.example.com' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', MCP_ALLOWED_HOSTS: 'movies.example.com' }).host).toBe('0.0.0.0');
    for (const HOST of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])
      expect(loadConfig({ HOST }).host, HOST).toBe(HOST);
  });
});

describe('session and shutdown settings', () => {
  it('defaults, and a per-principal cap never above the global one', () => {
    expect(loadConfig({})).toMatchObject({
      mcp: { maxSessions: 1000, maxSessionsPerUser: 20, maxSessionsPerAddress: 10, maxArgumentDepth: 64 },
      shutdown: { delayMs: 0, graceMs: 10000 },
    });
    expect(
      loadConfig({
        MCP_MAX_SESSIONS: '3',
        MCP_MAX_SESSIONS_PER_USER: '50',
        MCP_MAX_SESSIONS_PER_ADDRESS: '2',
      }).mcp,
    ).toMatchObject({ maxSessions: 3, maxSessionsPerUser: 3, maxSessionsPerAddress: 2 });
  });
});

describe('loadConfig: the database in parts', () => {
  it('builds a URL whose password survives any character, as pg reads it back', () => {
    const password = 'p@ss/w:rd#?%&= x';
    const config = loadConfig({
      DATABASE_HOST: 'db.internal',
      DATABASE_PORT: '6543',
      DATABASE_USER: 'movie@admin',
      DATABASE_PASSWORD: password,
      DATABASE_NAME: 'movies',
    });
    // pg's client parses its connectionString when built, without connecting.
    const parsed = new pg.Client({ connectionString: config.database.url! });
    expect(parsed).toMatchObject({
      host: 'db.internal',
      port: 6543,
      user: 'movie@admin',
      password,
      database: 'movies',
    });
  });

  it('refuses DATABASE_URL and DATABASE_HOST together', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a@b/c', DATABASE_HOST: 'b' })).toThrow(
      /DATABASE_URL and DATABASE_HOST: set one or the other/,
    );
  });

  it('LOG_FORMAT defaults to auto and accepts pretty and json only', () => {
    expect(loadConfig({}).log.format).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).log.format).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('traces are off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; then protobuf, moviedb-mcp and 5 s by default', () => {
    expect(
      loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing,
    ).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      endpoint: 'http://collector:4318',
      protocol: 'http/protobuf',
      serviceName: 'moviedb-mcp',
      scheduleDelayMs: 5000,
    });
  });

  it('refuses an OTLP endpoint that is not an http(s) URL, and the grpc protocol by name', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() =>
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: must be http\/protobuf or http\/json \(grpc is not supported\)/);
  });

  it('OPERATIONS_WATCH is on in development and off otherwise unless set; MCP_TOOLS_VISIBILITY is caller or all', () => {
    const secret = 'x'.repeat(32);
    expect(loadConfig({}).operations.watch).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).operations.watch).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret }).operations.watch).toBe(false);
    expect(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret, OPERATIONS_WATCH: 'true' }).operations.watch,
    ).toBe(true);
    expect(loadConfig({ OPERATIONS_WATCH: '0' }).operations.watch).toBe(false);
    expect(() => loadConfig({ OPERATIONS_WATCH: 'sometimes' })).toThrow(/OPERATIONS_WATCH/);
    expect(loadConfig({}).mcp.toolsVisibility).toBe('caller');
    expect(loadConfig({ MCP_TOOLS_VISIBILITY: 'all' }).mcp.toolsVisibility).toBe('all');
    expect(() => loadConfig({ MCP_TOOLS_VISIBILITY: 'scopes' })).toThrow(/MCP_TOOLS_VISIBILITY/);
  });
});

describe('the schema', () => {
  it('declares each variable once, and every field of Config is a setting', () => {
    expect(SETTING_NAMES.length).toBeGreaterThan(70);
    expect(new Set(SETTING_NAMES).size).toBe(SETTING_NAMES.length);
    const untagged = z.object({ a: setting('A_ONE', z.string().optional(), 'a'), b: z.string() });
    expect(() => settingsOf(untagged)).toThrow(/^b: declare it with setting\(\)/);
  });

  it('finds settings through transforms and nested objects, with their section', () => {
    const schema = section(
      'Outer',
      z.object({
        ms: setting('X_SECONDS', z.coerce.number().default(2), 'x').transform((s) => s * 1000),
        inner: section('Inner', z.object({ y: setting('X_Y', z.string().optional(), 'y') })).transform(
          (v) => v,
        ),
      }),
    );
    expect(settingsOf(schema).map(({ env, path, section }) => ({ env, path, section }))).toEqual([
      { env: 'X_SECONDS', path: ['ms'], section: 'Outer' },
      { env: 'X_Y', path: ['inner', 'y'], section: 'Inner' },
    ]);
  });

  it('a derived field is parsed from its variable, and a problem names the variable, not the field', () => {
    expect(loadConfig({ MCP_SESSION_IDLE_SECONDS: '2' }).mcp.sessionIdleMs).toBe(2000);
    expect(problemsOf({ MCP_SESSION_IDLE_SECONDS: '0' })).toEqual([
      expect.stringMatching(/^MCP_SESSION_IDLE_SECONDS: /),
    ]);
  });
});

describe('unknown settings', () => {
  it('a misspelt setting is refused, naming the closest one', () => {
    expect(problemsOf({ MCP_MAX_SESION: '5' })).toEqual([
      'MCP_MAX_SESION: not a setting; did you mean MCP_MAX_SESSIONS?',
    ]);
    expect(problemsOf({ GRAPHQL_MAX_DEPHT: '5' })).toEqual([
      'GRAPHQL_MAX_DEPHT: not a setting; did you mean GRAPHQL_MAX_DEPTH?',
    ]);
    expect(problemsOf({ DATABSE_URL: 'postgres://x' })).toEqual([]); // no namespace of ours: not checked
    expect(problemsOf({ DATABASE_URI: 'postgres://x' })).toEqual([
      'DATABASE_URI: not a setting; did you mean DATABASE_URL?',
    ]);
  });

  it('any key of the .env file read must be a setting, whatever its prefix', () => {
    expect(problemsOf({}, ['PROT', 'PORT'])).toEqual(['PROT: not a setting; did you mean PORT?']);
  });

  it('leaves alone what Node, npm, CI, tests, OpenTelemetry, Compose and Kubernetes set', () => {
    const theirs = {
      NODE_OPTIONS: '--max-old-space-size=512',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      npm_lifecycle_event: 'test',
      CI: 'true',
      TEST_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test',
      TEST_REDIS_URL: 'redis://127.0.0.1:6379',
      REQUIRE_CLUSTER: '1',
      BENCH_ITERATIONS: '3',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=1',
      OTEL_RESOURCE_ATTRIBUTES: 'team=movies',
      REDIS_IMAGE: 'redis:7-alpine',
      LB_PORT: '8080',
      COMPOSE_PROJECT_NAME: 'moviedb',
      REDIS_SERVICE_HOST: '10.0.0.3',
      REDIS_PORT: 'tcp://10.0.0.3:6379',
      REDIS_PORT_6379_TCP_ADDR: '10.0.0.3',
      MCP_SERVICE_PORT_HTTP: '8080',
    };
    expect(
      problemsOf(
        theirs,
        Object.keys(theirs).filter((name) => /^(OTEL|COMPOSE|LB|REDIS_IMAGE)/.test(name)),
      ),
    ).toEqual([]);
    expect(problemsOf({ REDIS_PORT: '6379' })).toEqual([
      'REDIS_PORT: not a setting; did you mean REDIS_URL?',
    ]);
  });

  it('edit distance counts a swap of neighbours as one step', () => {
    expect(editDistance('SESION', 'SESSION')).toBe(1);
    expect(editDistance('DEPHT', 'DEPTH')).toBe(1);
    expect(editDistance('', 'ABC')).toBe(3);
    expect(closestSetting('mcp_mode', ['MCP_AUTH', 'MCP_MODE'])).toBe('MCP_MODE');
    expect(findUnknownSettings({ X_A: '1' }, ['X_B'])).toEqual(['X_A: not a setting; did you mean X_B?']);
  });
});

describe('every problem at once', () => {
  it('lists unknown settings, invalid values and broken rules together', () => {
    const problems = problemsOf({
      MCP_MAX_SESION: '5',
      PORT: 'eighty',
      TRUST_PROXY: 'all',
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://a@b/c',
      DATABASE_HOST: 'b',
      OAUTH_ISSUER: 'https://issuer.example',
      HOST: '0.0.0.0',
    });
    expect(problems).toEqual([
      'MCP_MAX_SESION: not a setting; did you mean MCP_MAX_SESSIONS?',
      expect.stringMatching(/^PORT: /),
      expect.stringMatching(/^TRUST_PROXY: trusting every proxy/),
      'JWT_SECRET: required when NODE_ENV=production (at least 32 characters)',
      'DATABASE_URL and DATABASE_HOST: set one or the other, not both',
      'OAUTH_ISSUER and OAUTH_JWKS_URL: set both or neither',
      expect.stringMatching(/^PUBLIC_URL: required with OAUTH_ISSUER/),
      expect.stringMatching(/^PUBLIC_URL or MCP_ALLOWED_HOSTS: required when HOST \(0\.0\.0\.0\)/),
    ]);
  });
});
