/**
 * The movie card MCP App (docs/mcp.md, The movie card app) in a real headless Chromium, inside a minimal
 * host page (test/fixtures/mcp-app-host.html) that speaks the extension's postMessage protocol: the view's
 * HTML comes from resources/read, the card renders the getMovie result the host hands it, and its Add
 * button's tools/call goes through the host to the real server (a real MCP client with a real token) and
 * changes the caller's watch list. Without /usr/bin/chromium the test is skipped with a message, unless
 * REQUIRE_CHROMIUM=1 (CI sets it).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  chromiumRequired,
  launchChromium,
  warnIfNoChromium,
} from '../helpers/chromium.js';
import { connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const HOST_PAGE = readFileSync(path.resolve(import.meta.dirname, '../fixtures/mcp-app-host.html'), 'utf8');

warnIfNoChromium('Movie card browser test');

describe('a browser needed for the movie card test', () => {
  it.runIf(chromiumRequired)('is installed at /usr/bin/chromium (REQUIRE_CHROMIUM=1)', () => {
    expect(chromiumAvailable, '/usr/bin/chromium is missing').toBe(true);
  });
});

/** What the host page defines on its window (the test's tsconfig has no DOM types; casts only). */
interface HostWindow {
  showView(html: string, input: { name: string; arguments: unknown }, result: unknown): void;
  hostLog: HostLogEntry[];
}

interface HostLogEntry {
  from: string;
  message: { method?: string; params?: { name?: string; arguments?: unknown } };
}

describe.skipIf(!chromiumAvailable).each(dialects)(
  'the movie card in a host page in Chromium (%s)',
  (dialect) => {
    let server: TestServer;
    let browser: Awaited<ReturnType<typeof launchChromium>>;
    let context: BrowserContext;

    beforeAll(async () => {
      server = await startTestServer(dialect);
      browser = await launchChromium();
      context = browser.context;
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await server?.stop();
    });

    /** A host page showing the card for one tool call that `client` made; the view's calls go through `client`. */
    async function hostWithCard(client: Client, name: string, args: Record<string, unknown>) {
      const { contents } = await client.readResource({ uri: 'ui://moviedb/card' });
      const html = (contents[0] as { text: string }).text;
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const page: Page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
      });
      await page.exposeFunction(
        'callServerTool',
        (params: { name: string; arguments?: Record<string, unknown> }) =>
          client.callTool({ name: params.name, arguments: params.arguments ?? {} }),
      );
      await page.setContent(HOST_PAGE);
      await page.evaluate(
        ([view, input, output]) => (globalThis as unknown as HostWindow).showView(view, input, output),
        [html, { name, arguments: args }, result] as const,
      );
      const card = page.frameLocator('iframe').locator('article.card');
      const log = () => page.evaluate(() => (globalThis as unknown as HostWindow).hostLog);
      return { page, card, log, refused };
    }

    it('renders getMovie, and Add calls addToWatchlist through the host and the watch list has the movie', async () => {
      const { token } = await server.newUser();
      const client = await connectClient(server.url, token);
      try {
        const { page, card, log, refused } = await hostWithCard(client, 'getMovie', { id: '1' });
        await expect
          .poll(() => card.locator('h2').innerText(), { timeout: 30_000 })
          .toBe('The Shawshank Redemption');
        expect(await card.locator('.meta').innerText()).toBe('1994 · Drama · rated 9.3/10');
        expect(await card.locator('.directors').innerText()).toBe('Directed by Frank Darabont');
        await expect
          .poll(() => card.locator('.status').innerText(), { timeout: 30_000 })
          .toBe('Not on your watch list');

        await card.getByRole('button', { name: 'Add to watch list' }).click();
        await expect
          .poll(() => card.locator('.status').innerText(), { timeout: 30_000 })
          .toBe('On your watch list: want to watch');
        expect(await card.getByRole('button').isHidden()).toBe(true);

        // The view spoke the extension's protocol: initialize, initialized, then its calls through the host.
        const fromView = (await log()).filter((entry) => entry.from === 'view').map((entry) => entry.message);
        expect(fromView.map((message) => message.method).filter(Boolean)).toEqual(
          expect.arrayContaining(['ui/initialize', 'ui/notifications/initialized', 'tools/call']),
        );
        expect(fromView.filter((message) => message.method === 'tools/call').map((m) => m.params)).toEqual([
          { name: 'myWatchlist', arguments: {} },
          { name: 'addToWatchlist', arguments: { subject: { movieId: '1' } } },
        ]);
        const watchlist = (await client.callTool({ name: 'myWatchlist', arguments: {} })) as CallToolResult;
        const entries = (
          watchlist.structuredContent as { data: { status: string; content: { id: string } }[] }
        ).data;
        expect(entries).toEqual([
          expect.objectContaining({ status: 'WANT_TO_WATCH', content: expect.objectContaining({ id: '1' }) }),
        ]);
        // Its own script and style ran under its strict policy, which refused nothing.
        expect(refused).toEqual([]);
        await page.close();
      } finally {
        await client.close();
      }
    }, 120_000);

    it('renders each movie of a searchMovies page with the watch status the list holds', async () => {
      const { token } = await server.newUser();
      const client = await connectClient(server.url, token);
      try {
        await client.callTool({
          name: 'addToWatchlist',
          arguments: { subject: { movieId: '1' }, status: 'WATCHED' },
        });
        const { page, card } = await hostWithCard(client, 'searchMovies', {
          size: 3,
          sort: { field: 'RATING', order: 'DESC' },
        });
        await expect.poll(() => card.count(), { timeout: 30_000 }).toBe(3);
        const shawshank = page.frameLocator('iframe').locator('article.card[data-movie-id="1"]');
        await expect
          .poll(() => shawshank.locator('.status').innerText(), { timeout: 30_000 })
          .toBe('On your watch list: watched');
        expect(await shawshank.locator('.directors').count()).toBe(0);
        await page.close();
      } finally {
        await client.close();
      }
    }, 120_000);

    it('an anonymous caller sees the card and is told to sign in, with no button', async () => {
      const client = await connectClient(server.url);
      try {
        const { page, card } = await hostWithCard(client, 'getMovie', { id: '2' });
        await expect
          .poll(() => card.locator('.status').innerText(), { timeout: 30_000 })
          .toBe('Sign in to keep a watch list.');
        expect(await card.getByRole('button').isHidden()).toBe(true);
        await page.close();
      } finally {
        await client.close();
      }
    }, 120_000);
  },
);
