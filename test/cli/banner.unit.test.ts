import { describe, expect, it } from 'vitest';
import { formatBanner } from '../../src/cli/banner.js';
import { loadConfig } from '../../src/config.js';

describe('the start-up banner (printed when stdout is a terminal)', () => {
  it('names the URLs, the store, the MCP mode and where the development signing key lives', () => {
    const banner = formatBanner(loadConfig({ PORT: '8080', DATA_DIR: './data' }), 8080, '1.2.3');
    expect(banner).toMatch(/^moviedb-mcp 1\.2\.3 is ready \(development, listening on 127\.0\.0\.1:8080\)/);
    for (const url of ['/graphql', '/mcp', '/healthz', '/readyz', '/metrics']) {
      expect(banner).toContain(`http://127.0.0.1:8080${url}`);
    }
    expect(banner).toMatch(/Store\s+SQLite in \.\/data\/moviedb\.sqlite/);
    expect(banner).toMatch(/MCP\s+http:\/\/127\.0\.0\.1:8080\/mcp\s+\(sessions, auth optional\)/);
    expect(banner).toMatch(/Signing\s+development key in data\/jwt-secret/);
    expect(banner).toMatch(/Token\s+npx moviedb-mcp token user user123/);
  });

  it('shows a wildcard bind as a loopback URL, PostgreSQL without its password, and the port for token', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      MCP_ALLOWED_HOSTS: 'localhost,127.0.0.1',
      DATABASE_HOST: 'db',
      DATABASE_PASSWORD: 'hunter2-secret',
      JWT_SECRET: 'x'.repeat(32),
      MCP_MODE: 'stateless',
    });
    const banner = formatBanner(config, 9090, '1.2.3');
    expect(banner).toContain('http://127.0.0.1:9090/graphql');
    expect(banner).toMatch(/Store\s+PostgreSQL at db:5432, database moviedb, user postgres/);
    expect(banner).not.toContain('hunter2');
    expect(banner).toMatch(/\(stateless, auth optional\)/);
    expect(banner).toMatch(/Signing\s+JWT_SECRET/);
    expect(banner).toContain('PORT=9090 npx moviedb-mcp token');
  });
});
