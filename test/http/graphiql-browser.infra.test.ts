/**
 * GraphiQL as a first-time visitor sees it, in a real headless Chromium (the distribution's package):
 * the page loads with no Authorization header, the schema explorer fills in anonymously, and the example
 * query of the default tab runs and shows data. A screenshot is kept for CI (artifacts/graphiql-*.png).
 * Without /usr/bin/chromium the test is skipped with a message, unless REQUIRE_CHROMIUM=1 (CI sets it).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  chromiumAvailable,
  chromiumRequired,
  launchChromium,
  warnIfNoChromium,
} from '../helpers/chromium.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { outlast } from '../helpers/time.js';

const ARTIFACTS = path.resolve('artifacts');

warnIfNoChromium('GraphiQL browser test');

describe('a browser needed for the GraphiQL test', () => {
  it.runIf(chromiumRequired)('is installed at /usr/bin/chromium (REQUIRE_CHROMIUM=1)', () => {
    expect(chromiumAvailable, `${CHROMIUM} is missing`).toBe(true);
  });
});

describe.skipIf(!chromiumAvailable).each(dialects)('GraphiQL in headless Chromium (%s)', (dialect) => {
  let server: TestServer;
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    browser = await launchChromium({ viewport: { width: 1400, height: 900 } });
    context = browser.context;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens on a working example query, runs it anonymously and shows data; the schema explorer fills in', async () => {
    const page = await context.newPage();
    const graphqlRequests: { authorization?: string; status?: number }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/graphql' && response.request().method() === 'POST') {
        graphqlRequests.push({
          authorization: response.request().headers().authorization,
          status: response.status(),
        });
      }
    });
    await page.goto(`${server.url}/graphql`);
    await page.locator('.graphiql-container').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 30_000 })
      .toContain('recommendMoviesForMood(mood: HORROR)');

    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(() => response.innerText(), { timeout: 30_000 }).toContain('"recommendMoviesForMood"');
    const text = await response.innerText();
    expect(text).toContain('Se7en');
    expect(text).not.toContain('"errors"');

    // The schema explorer, for an anonymous visitor: the root types are listed.
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => docs.innerText(), { timeout: 30_000 }).toMatch(/query:\s*Query/);
    await docs.getByText('Query', { exact: true }).click();
    await expect.poll(() => docs.innerText(), { timeout: 30_000 }).toContain('recommendMoviesForMood');

    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, `graphiql-${dialect}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`GraphiQL screenshot: ${screenshot}`);

    // The schema fetch and the query went out without an Authorization header and all answered 200.
    expect(graphqlRequests.length).toBeGreaterThanOrEqual(2);
    expect(graphqlRequests.every((r) => r.authorization === undefined && r.status === 200)).toBe(true);
  }, 120_000);

  it('offers tabs for a search with variables, the login mutation and a watch-list mutation', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/graphql`);
    const tabs = page.locator('.graphiql-tab');
    await expect.poll(() => tabs.count(), { timeout: 30_000 }).toBe(4);
    const names = (await tabs.allInnerTexts()).join(' ');
    expect(names).toMatch(/RecommendForMood.*SearchMovies.*Login.*AddToWatchlist/s);
    await tabs.nth(1).click();
    // GraphiQL derives the operation name from the editor text 100 ms (debounced) after the tab's text
    // is in; run before that and it sends the previous tab's name. Wait for the text, then a moment more,
    // as a person would.
    await expect
      .poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 30_000 })
      .toContain('query SearchMovies');
    await expect
      .poll(() => page.locator('.graphiql-editor-tool').innerText(), { timeout: 30_000 })
      .toContain('DRAMA');
    await outlast(1000, "GraphiQL's own 100 ms debounce of the operation name has no hook we can read");
    await page.locator('.graphiql-execute-button').click();
    await expect
      .poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 })
      .toContain('"totalElements"');
  }, 120_000);
});
