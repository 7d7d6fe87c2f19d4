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
});
