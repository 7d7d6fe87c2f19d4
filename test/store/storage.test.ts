import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

describe('embedded storage', () => {
  it('migrates and seeds on first start, keeps data across restarts without seeding twice, in WAL mode', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-restart-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      JWT_SECRET: TEST_JWT_SECRET,
    });
    try {
      const first = await startServer(config);
      const login = await fetch(`${first.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query:
            'mutation { register(input: { username: "keeper", email: "keeper@example.com", password: "secret1" }) { token } }',
        }),
      });
      expect(login.status).toBe(200);
      await first.close();

      const second = await startServer(config);
      await second.close();

      const file = new SqliteDatabase(path.join(dataDir, 'moviedb.sqlite'), { readonly: true });
      expect(file.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(file.prepare('select count(*) as n from movies').get()).toEqual({ n: 71 });
      expect(file.prepare("select count(*) as n from users where username = 'keeper'").get()).toEqual({
        n: 1,
      });
      file.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a development server without JWT_SECRET generates one in DATA_DIR and keeps it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-secret-'));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
    try {
      const first = await startServer(config);
      const token = await first.tokens.issue(2, 'USER');
      await first.close();
      const second = await startServer(config);
      await expect(second.tokens.verify(token)).resolves.toMatchObject({
        subject: '2',
        userId: 2,
        role: 'USER',
      });
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a seed file without password hashes has its passwords hashed when seeding, with salts of its own', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-seed-'));
    const seed = JSON.parse(readFileSync('seed/moviedb-seed.json', 'utf8')) as {
      users: { username: string; passwordHash?: string }[];
    };
    const projectHash = seed.users.find((u) => u.username === 'user')!.passwordHash;
    for (const user of seed.users) delete user.passwordHash;
    writeFileSync(path.join(dataDir, 'seed.json'), JSON.stringify(seed));
    const config = loadConfig({
      DATA_DIR: dataDir,
      SEED_FILE: path.join(dataDir, 'seed.json'),
      PORT: '0',
      LOG_LEVEL: 'silent',
      JWT_SECRET: TEST_JWT_SECRET,
    });
    try {
      const server = await startServer(config);
      const login = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation { login(input: { username: "user", password: "user123" }) { token } }',
        }),
      });
      expect(((await login.json()) as { data: { login: { token: string } } }).data.login.token).toBeTruthy();
      await server.close();

      const file = new SqliteDatabase(path.join(dataDir, 'moviedb.sqlite'), { readonly: true });
      const row = file.prepare("select password_hash from users where username = 'user'").get() as {
        password_hash: string;
      };
      file.close();
      expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(row.password_hash).not.toBe(projectHash);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
