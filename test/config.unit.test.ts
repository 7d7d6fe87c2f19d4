import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8080 with SQLite in ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: './data',
      database: { url: undefined },
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
  it('builds a URL whose password survives any character, as pg reads it back', async () => {
    const { parse } = await import('pg-connection-string');
    const password = 'p@ss/w:rd#?%&= x';
    const config = loadConfig({
      DATABASE_HOST: 'db.internal',
      DATABASE_PORT: '6543',
      DATABASE_USER: 'movie@admin',
      DATABASE_PASSWORD: password,
      DATABASE_NAME: 'movies',
    });
    const parsed = parse(config.database.url!);
    expect(parsed).toMatchObject({
      host: 'db.internal',
      port: '6543',
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
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
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
    expect(loadConfig({}).operationsWatch).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).operationsWatch).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret }).operationsWatch).toBe(false);
    expect(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: secret, OPERATIONS_WATCH: 'true' }).operationsWatch,
    ).toBe(true);
    expect(loadConfig({ OPERATIONS_WATCH: '0' }).operationsWatch).toBe(false);
    expect(() => loadConfig({ OPERATIONS_WATCH: 'sometimes' })).toThrow(/OPERATIONS_WATCH/);
    expect(loadConfig({}).mcp.toolsVisibility).toBe('caller');
    expect(loadConfig({ MCP_TOOLS_VISIBILITY: 'all' }).mcp.toolsVisibility).toBe('all');
    expect(() => loadConfig({ MCP_TOOLS_VISIBILITY: 'scopes' })).toThrow(/MCP_TOOLS_VISIBILITY/);
  });
});
