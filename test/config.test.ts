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
