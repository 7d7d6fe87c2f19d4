/**
 * The moviedb-mcp command as a user runs it: spawned processes, real ports, real databases. Start-up
 * failures are one readable message with a sysexits code and no stack; a database password never
 * appears in any output.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir, spawnCli, waitForLine } from '../helpers/cli.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server.js';

const TOOLS = [
  'addToWatchlist',
  'createReview',
  'getMovie',
  'myWatchlist',
  'recommendMoviesForMood',
  'removeFromWatchlist',
  'searchMovies',
  'setWatchStatus',
  'summarizeMovieReviews',
];
const version = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** A port nothing listens on: the OS hands out a free one, which is closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

describe('moviedb-mcp --help, --version and usage errors', () => {
  it('--help prints the commands and exits 0 without starting a server', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: moviedb-mcp \[command\]/);
    for (const command of ['serve', 'token', 'check', 'tools', 'migrate'])
      expect(result.stdout).toContain(`  ${command}`);
    const serveHelp = await runCli(['serve', '--help']);
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toContain('Usage: moviedb-mcp');
  });

  it('--version prints the version of package.json', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('an unknown command exits 64 with the usage on stderr', async () => {
    const result = await runCli(['serv']);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/Unknown command or option: serv\n\nUsage:/);
  });
});

/** The table `check` and `tools` print: one row a tool, then the total. */
function toolRows(stdout: string) {
  return TOOLS.map((tool) => {
    const match = new RegExp(
      `^  ${tool}\\s+(query|mutation)\\s+(anyone|signed in|admin)\\s+(\\S+)\\s+(\\d+)\\s+(\\d+)\\s+(json|rendered)$`,
      'm',
    ).exec(stdout);
    expect(match, `a line for ${tool}`).not.toBeNull();
    const [, kind, caller, scopes, chars, tokens, text] = match!;
    return { tool, kind, caller, scopes, chars: Number(chars), tokens: Number(tokens), text };
  });
}

describe('moviedb-mcp check', () => {
  it('validates configuration and operations and prints every tool with its size in characters and tokens', async () => {
    const result = await runCli(['check']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Configuration: ok/m);
    expect(result.stdout).toMatch(/^Operations: ok, 9 tools from /m);
    const rows = toolRows(result.stdout);
    for (const row of rows) {
      expect(row.chars).toBeGreaterThan(200);
      expect(row.tokens).toBe(Math.ceil(row.chars / 4));
    }
    const total = /^ {2}total\s+(\d+)\s+(\d+)$/m.exec(result.stdout);
    expect(Number(total?.[1])).toBe(rows.reduce((sum, row) => sum + row.chars, 0));
  });

  it('an operation catalogue with problems exits 65 and lists file:line problems', async () => {
    const result = await runCli(['check'], {
      env: { OPERATIONS_DIR: path.resolve(import.meta.dirname, '../fixtures/operations-broken') },
    });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(/^The operation catalogue has problems:\n/);
    expect(result.stderr).toMatch(/^ {2}- Broken\.graphql:\d+:\d+: Syntax Error/m);
    noStack(result.stderr);
  });
});

describe('moviedb-mcp tools', () => {
  it('lists each tool with who may call it, its scopes, its size and its text block, under the token budget', async () => {
    const result = await runCli(['tools']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^9 tools from .*operations:$/m);
    const rows = Object.fromEntries(toolRows(result.stdout).map((row) => [row.tool, row]));
    expect(rows.recommendMoviesForMood).toMatchObject({
      kind: 'query',
      caller: 'anyone',
      scopes: 'movies:read',
      text: 'rendered',
    });
    expect(rows.myWatchlist).toMatchObject({ caller: 'signed in', scopes: 'watchlist:read' });
    expect(rows.createReview).toMatchObject({ kind: 'mutation', scopes: 'reviews:write', text: 'json' });
    const total = /^ {2}total\s+(\d+)\s+(\d+)$/m.exec(result.stdout);
    expect(Number(total?.[2])).toBeLessThanOrEqual(3500);
  });

  it('a broken catalogue exits 65 with its file:line problems', async () => {
    const result = await runCli(['tools'], {
      env: { OPERATIONS_DIR: path.resolve(import.meta.dirname, '../fixtures/operations-broken') },
    });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(/^ {2}- tools\.json:5: recommend\.text\.item: /m);
    noStack(result.stderr);
  });
});

describe('start-up failures: one message, a distinct exit code, no stack', () => {
  it('an invalid configuration exits 78 naming every bad setting', async () => {
    const result = await runCli([], { env: { PORT: 'eighty', MCP_MODE: 'both' } });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/^Invalid configuration:\n/);
    expect(result.stderr).toMatch(/- PORT: /);
    expect(result.stderr).toMatch(/- MCP_MODE: /);
    expect(result.stderr).toContain('.env.example');
    noStack(result.stderr);
  });

  it('a misspelt setting exits 78 naming the closest one, before anything starts', async () => {
    const result = await runCli([], { env: { MCP_MAX_SESION: '5', PORT: 'eighty' } });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('- MCP_MAX_SESION: not a setting; did you mean MCP_MAX_SESSIONS?');
    expect(result.stderr).toMatch(/- PORT: /);
    expect(result.stdout).toBe('');
    noStack(result.stderr);
  });

  describe('a busy port', () => {
    let blocker: Server;
    let port: number;
    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      port = (blocker.address() as { port: number }).port;
    });
    afterAll(() => new Promise((resolve) => blocker.close(resolve)));

    it('exits 69 naming the port and what to do', async () => {
      const result = await runCli(['serve'], { env: { PORT: String(port), LOG_LEVEL: 'warn' } });
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(`Port ${port} is already in use on 127.0.0.1`);
      expect(result.stderr).toContain(`PORT=${port + 1} npm start`);
      expect(result.stderr).not.toContain('Cannot destructure');
      noStack(result.stderr);
    });
  });

  it('an unreachable PostgreSQL exits 69 naming host, port and reason, never the password', async () => {
    const port = await closedPort();
    const password = 'pa55-@/:#secret';
    const envs: Record<string, string>[] = [
      { DATABASE_HOST: '127.0.0.1', DATABASE_PORT: String(port), DATABASE_PASSWORD: password },
      { DATABASE_URL: `postgres://moviedb:${encodeURIComponent(password)}@127.0.0.1:${port}/moviedb` },
    ];
    for (const env of envs) {
      const result = await runCli(['migrate'], { env });
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(`PostgreSQL at 127.0.0.1:${port}`);
      expect(result.stderr).toContain('connection refused');
      expect(result.stderr + result.stdout).not.toContain('pa55');
      noStack(result.stderr);
    }
  });
});

describe('a PostgreSQL server that refuses', () => {
  it.runIf(process.env.TEST_DATABASE_URL)(
    'a database that does not exist exits 69 naming it and the reason',
    async () => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = '/no_such_database_here';
      url.password = 'pa55word';
      const result = await runCli(['migrate'], { env: { DATABASE_URL: url.href } });
      expect(result.code).toBe(69);
      expect(result.stderr).toContain(
        `PostgreSQL at ${url.hostname}:${url.port || '5432'}, database no_such_database_here`,
      );
      expect(result.stderr).toContain('the database does not exist (3D000)');
      expect(result.stderr + result.stdout).not.toContain('pa55word');
    },
  );
});

describe('settings from a .env file', () => {
  it('are read from the current folder, and the environment wins over the file', async () => {
    const cwd = scratchDir();
    writeFileSync(path.join(cwd, '.env'), '# a comment\nMCP_MODE=stateless\nPORT=4321\nHOST=127.0.0.2\n');
    const result = await runCli(['check'], { cwd, env: { PORT: '5555' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/listen\s+127\.0\.0\.2:5555/);
    expect(result.stdout).toMatch(/MCP\s+stateless/);
  });

  it('an invalid value in .env is a configuration error (exit 78)', async () => {
    const cwd = scratchDir();
    writeFileSync(path.join(cwd, '.env'), 'GRAPHQL_MAX_DEPTH=1000\n');
    const result = await runCli(['check'], { cwd });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/GRAPHQL_MAX_DEPTH/);
  });

  it('a key of .env that is not a setting is refused (exit 78), whatever its prefix', async () => {
    const cwd = scratchDir();
    writeFileSync(path.join(cwd, '.env'), 'PROT=9000\nLB_PORT=8081\n');
    const result = await runCli(['check'], { cwd });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('- PROT: not a setting; did you mean PORT?');
    expect(result.stderr).not.toContain('LB_PORT');
  });

  it('a line of .env that Node would drop or misread is refused (exit 78), each named by its line', async () => {
    const cwd = scratchDir();
    writeFileSync(path.join(cwd, '.env'), '# settings\n__proto__=1\nMCP_MODE=stateless\nPORT\n=x\n');
    const result = await runCli(['check'], { cwd });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain(`- .env line 2: __proto__ is not read by Node's .env loader`);
    expect(result.stderr).toContain('- .env line 4: no "=" (each line is NAME=value, or a # comment)');
    expect(result.stderr).toContain('- .env line 5: no name before "="');
  });

  it('a quoted value may span lines in .env', async () => {
    const cwd = scratchDir();
    writeFileSync(path.join(cwd, '.env'), 'export MCP_MODE="state\nless"\nPORT=4321\n');
    const result = await runCli(['check'], { cwd });
    expect(result.code, result.stderr).toBe(78);
    expect(result.stderr).toContain('MCP_MODE');
    expect(result.stderr).not.toContain('.env line');
  });

  it('a missing .env is fine', async () => {
    expect((await runCli(['check'])).code).toBe(0);
  });
});

describe('moviedb-mcp migrate', () => {
  it('migrates and seeds SQLite in DATA_DIR and exits 0', async () => {
    const cwd = scratchDir();
    const result = await runCli(['migrate'], { cwd, env: { DATA_DIR: './state' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Migrated: SQLite in ./state/moviedb.sqlite is up to date.');
    expect(existsSync(path.join(cwd, 'state', 'moviedb.sqlite'))).toBe(true);
  });

  it('a seed file with a malformed password hash stops the first start with exit 65 naming the field', async () => {
    const cwd = scratchDir();
    const seed = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, '../../seed/moviedb-seed.json'), 'utf8'),
    );
    seed.users[1].passwordHash = 'scrypt$abc$8$1$momYoHZzTxjWdNlt2O89yQ==$key';
    writeFileSync(path.join(cwd, 'seed.json'), JSON.stringify(seed));
    const result = await runCli(['migrate'], { cwd, env: { DATA_DIR: './state', SEED_FILE: './seed.json' } });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(
      /seed file .*seed\.json is not a valid catalogue: users\[1\]\.passwordHash: not a scrypt hash/,
    );
    expect(result.stderr).not.toMatch(/\bat \S+ \(|"code":/);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'migrates PostgreSQL given in parts, with a password full of URL delimiters',
    async () => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      const schema = `cli_${randomBytes(5).toString('hex')}`;
      try {
        const result = await runCli(['migrate'], {
          env: {
            DATABASE_HOST: url.hostname,
            DATABASE_PORT: url.port || '5432',
            DATABASE_USER: decodeURIComponent(url.username),
            // Any password: the test server trusts local connections, so this proves only the URL parsing.
            DATABASE_PASSWORD: decodeURIComponent(url.password) || 'p@ss/w:rd#?',
            DATABASE_NAME: url.pathname.slice(1),
            DATABASE_SCHEMA: schema,
          },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(`PostgreSQL at ${url.hostname}:${url.port || '5432'}`);
      } finally {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
    },
  );
});

describe('moviedb-mcp token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.stop());

  it('signs in through the server named by HOST and PORT and prints a working token', async () => {
    const port = String(new URL(server.url).port);
    const result = await runCli(['token', 'user', 'user123'], { env: { PORT: port, HOST: '127.0.0.1' } });
    expect(result.code, result.stderr).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const me = await server.graphql<{ me: { username: string } }>('{ me { username } }', {}, token);
    expect(me.body.data?.me.username).toBe('user');
  });

  it('follows PUBLIC_URL when it is set', async () => {
    const result = await runCli(['token', 'user', 'user123'], { env: { PUBLIC_URL: server.url, PORT: '1' } });
    expect(result.code, result.stderr).toBe(0);
  });

  it('a wrong password exits 1 with the server message', async () => {
    const result = await runCli(['token', 'user', 'wrong-password'], {
      env: { PORT: String(new URL(server.url).port) },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Sign-in as user failed: Invalid credentials');
  });

  it('no server on that port exits 69 saying where it looked and which settings it follows', async () => {
    const port = await closedPort();
    const result = await runCli(['token'], { env: { PORT: String(port) } });
    expect(result.code).toBe(69);
    expect(result.stderr).toContain(`Cannot reach http://127.0.0.1:${port}/graphql (ECONNREFUSED)`);
    expect(result.stderr).toContain('PUBLIC_URL');
  });
});

describe('moviedb-mcp serve', () => {
  it('logs JSON lines when stdout is not a terminal, keeps probes at debug, and drains to exit 0 on SIGTERM', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info' },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const listening = JSON.parse(await waitForLine(child, /"msg":"listening"/)) as { url: string };
    expect((await fetch(`${listening.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${listening.url}/readyz`)).status).toBe(200);
    const graphql = await fetch(`${listening.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'cli-test-1' },
      body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
    });
    expect(graphql.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; path?: string; requestId?: string; level: number });
    expect(
      lines.some((l) => l.msg === 'request' && l.path === '/graphql' && l.requestId === 'cli-test-1'),
    ).toBe(true);
    expect(lines.some((l) => l.path === '/healthz' || l.path === '/readyz')).toBe(false);
    expect(lines.some((l) => l.msg === 'draining')).toBe(true);
    // No banner when stdout is not a terminal: every line is JSON.
    expect(stdout).not.toContain('is ready');
  });

  it('LOG_FORMAT=pretty writes readable lines instead of JSON', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_FORMAT: 'pretty' },
    });
    const line = await waitForLine(child, /listening/);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening \{.*"url":"http:\/\/127\.0\.0\.1:\d+"/);
    expect(() => JSON.parse(line) as unknown).toThrow();
  });
});
