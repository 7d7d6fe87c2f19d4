/**
 * Hot reload of the operation catalogue (docs/authoring-tools.md, Hot reload; OPERATIONS_WATCH): an added, changed or
 * removed operation file swaps the catalogue and 2025 sessions get notifications/tools/list_changed,
 * 2026-07-28 clients see it when the list's (short, while watching) ttlMs runs out; a broken file or
 * tools.json keeps the running catalogue and is logged with file:line. Through real clients of both eras,
 * on a copy of the project's operations folder.
 */
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_TTL_MS, WATCHED_LIST_TTL_MS } from '../../src/mcp/mcp-server.js';
import { RELOAD_DEBOUNCE_MS } from '../../src/operations/operation-catalogue.js';
import { captureLogs } from '../helpers/log-capture.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { connectModernClient, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { outlast } from '../helpers/time.js';

const PROJECT_OPERATIONS = path.resolve(import.meta.dirname, '../../operations');
const TOP_MOVIES = `# Lists the three best-rated movies.
query TopMovies {
  movies(size: 3, sort: { field: RATING, order: DESC }) {
    content {
      id
      title
    }
  }
}
`;

describe('hot reload of the operation catalogue', () => {
  let dir: string;
  let server: TestServer;
  let session: Client;
  let modern: ModernClient;
  let token: string;
  let notifications = 0;
  const logs = captureLogs('debug');

  const names = async () => (await session.listTools()).tools.map((t) => t.name);
  const logged = (message: string) => logs.lines().filter((line) => line.msg === message);
  /** How many times the catalogue was reloaded, and how many times a reload was refused. */
  const reloads = () => logged('operation catalogue reloaded').length;
  const refusals = () => logged('operation catalogue not reloaded, the running one stays').length;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'moviedb-operations-'));
    cpSync(PROJECT_OPERATIONS, dir, { recursive: true });
    server = await startTestServer('sqlite', {
      logger: logs.logger,
      env: { OPERATIONS_DIR: dir, OPERATIONS_WATCH: 'true' },
    });
    token = await server.login('user', 'user123');
    session = await connectClient(server.url, token);
    session.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notifications += 1;
    });
    modern = await connectModernClient(server.url, { authorization: `Bearer ${token}` });
  });
  afterAll(async () => {
    await Promise.all([session.close(), modern.close()]);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs each tool’s estimated tokens at boot, in one line', () => {
    const [boot] = logged('operation catalogue loaded');
    expect(boot).toMatchObject({ totalTokens: expect.any(Number) });
    const tools = boot!.tools as Record<string, number>;
    expect(Object.keys(tools)).toHaveLength(9);
    expect(tools.searchMovies).toBeGreaterThan(100);
  });

  it('advertises listChanged to 2025 sessions only while watching; 2026 lists live 5 s', async () => {
    expect(session.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    // 2026 clients have no session to be told on: their list simply expires sooner.
    expect(modern.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    expect((await modern.listTools()).ttlMs).toBe(WATCHED_LIST_TTL_MS);
  });

  it('an added file becomes a tool: 2025 sessions are notified, 2026 clients see it once the list expires', async () => {
    const before = notifications;
    const cached = (await modern.listTools()).tools.map((t) => t.name);
    writeFileSync(path.join(dir, 'TopMovies.graphql'), TOP_MOVIES);
    await expect.poll(() => notifications, { timeout: 5000 }).toBeGreaterThan(before);
    expect(await names()).toContain('topMovies');
    const top = await callTool<{ content: { id: string }[] }>(session, 'topMovies');
    expect(top.structuredContent.data.content.map((m) => m.id)).toEqual(['1', '2', '3']);
    expect(cached).not.toContain('topMovies');
    // The 2026 client's cached list is served until its ttlMs runs out, then fetched again.
    await expect
      .poll(async () => (await modern.listTools()).tools.map((t) => t.name), {
        timeout: WATCHED_LIST_TTL_MS + 3000,
        interval: 500,
      })
      .toContain('topMovies');
  });

  it('a changed file changes the tool', async () => {
    const before = notifications;
    writeFileSync(path.join(dir, 'TopMovies.graphql'), TOP_MOVIES.replace('three best-rated', 'top three'));
    await expect.poll(() => notifications, { timeout: 5000 }).toBeGreaterThan(before);
    const tool = (await session.listTools()).tools.find((t) => t.name === 'topMovies');
    expect(tool?.description).toBe('Lists the top three movies.');
  });

  it('a broken file keeps the running catalogue, says nothing to clients, and is logged with file:line', async () => {
    const [toolsBefore, notifiedBefore, refusedBefore] = [await names(), notifications, refusals()];
    writeFileSync(
      path.join(dir, 'Broken.graphql'),
      'query Broken {\n  movie(id: "1") {\n    noSuchField\n  }\n}\n',
    );
    await expect.poll(refusals, { timeout: 5000 }).toBe(refusedBefore + 1);
    const refusal = logged('operation catalogue not reloaded, the running one stays').at(-1)!;
    expect(refusal.level).toBe(50);
    expect(refusal.problems).toEqual([
      expect.stringMatching(/^Broken\.graphql:3:5: Cannot query field "noSuchField" on type "Movie"/),
    ]);
    expect(await names()).toEqual(toolsBefore);
    expect(notifications).toBe(notifiedBefore);
    // The running catalogue still answers.
    expect((await callTool(session, 'topMovies')).isError).toBe(false);
    const reloadsBefore = reloads();
    unlinkSync(path.join(dir, 'Broken.graphql'));
    await expect.poll(reloads, { timeout: 5000 }).toBeGreaterThan(reloadsBefore);
  });

  it('a broken tools.json keeps the running catalogue and is logged with its line', async () => {
    const file = path.join(dir, 'tools.json');
    const refusedBefore = refusals();
    writeFileSync(file, '{\n  "getMovie": { "timeoutMs": 50 }\n}\n');
    await expect.poll(refusals, { timeout: 5000 }).toBe(refusedBefore + 1);
    expect(logged('operation catalogue not reloaded, the running one stays').at(-1)!.problems).toEqual([
      expect.stringMatching(/^tools\.json:2: getMovie\.timeoutMs: /),
    ]);
    writeFileSync(file, '{\n  "getMovie": {\n');
    await expect.poll(refusals, { timeout: 5000 }).toBe(refusedBefore + 2);
    expect(logged('operation catalogue not reloaded, the running one stays').at(-1)!.problems).toEqual([
      expect.stringMatching(/^tools\.json:3: not valid JSON/),
    ]);
    // Meanwhile the catalogue that ran before still runs, text renderings included.
    const list = await callTool(session, 'recommendMoviesForMood', { mood: 'HORROR' });
    expect((list.content as { text: string }[])[0]!.text).toMatch(/^9 movies: /);
    const reloadsBefore = reloads();
    cpSync(path.join(PROJECT_OPERATIONS, 'tools.json'), file);
    await expect.poll(reloads, { timeout: 5000 }).toBeGreaterThan(reloadsBefore);
  });

  it('files the catalogue is not made of (notes, an editor’s swap file) do not reload it', async () => {
    const before = reloads() + refusals();
    writeFileSync(path.join(dir, 'NOTES.txt'), 'not an operation');
    writeFileSync(path.join(dir, '.TopMovies.graphql.swp'), 'query {');
    // The watcher saw both and set them aside: no reload was scheduled for them.
    const ignored = () =>
      new Set(logged('operations folder change ignored: not a catalogue file').map((line) => line.file));
    await expect.poll(ignored, { timeout: 5000 }).toEqual(new Set(['NOTES.txt', '.TopMovies.graphql.swp']));
    expect(reloads() + refusals()).toBe(before);
  });

  it('a removed file removes the tool; calling it is then an unknown tool (-32602)', async () => {
    const before = notifications;
    unlinkSync(path.join(dir, 'TopMovies.graphql'));
    await expect.poll(async () => await names(), { timeout: 5000 }).not.toContain('topMovies');
    await expect.poll(() => notifications, { timeout: 5000 }).toBeGreaterThan(before);
    const request = modernRequest(3, 'tools/call', { name: 'topMovies', arguments: {} });
    const response = await raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...request.headers, authorization: `Bearer ${token}` },
      body: request.body,
    });
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: -32602 } });
  });
});

describe('without OPERATIONS_WATCH (the default outside development)', () => {
  let dir: string;
  let server: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'moviedb-operations-'));
    cpSync(PROJECT_OPERATIONS, dir, { recursive: true });
    server = await startTestServer('sqlite', { env: { OPERATIONS_DIR: dir } });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('advertises no listChanged, keeps the long list ttlMs, and ignores file changes', async () => {
    const session = await connectClient(server.url);
    const modern = await connectModernClient(server.url);
    try {
      expect(session.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      expect((await modern.listTools()).ttlMs).toBe(LIST_TTL_MS);
      writeFileSync(path.join(dir, 'TopMovies.graphql'), TOP_MOVIES);
      await outlast(RELOAD_DEBOUNCE_MS + 350, 'no reload can come: a watcher would have reloaded by now');
      expect((await session.listTools()).tools.map((t) => t.name)).not.toContain('topMovies');
    } finally {
      await Promise.all([session.close(), modern.close()]);
    }
  });
});
