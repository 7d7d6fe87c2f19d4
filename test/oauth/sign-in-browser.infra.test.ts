/**
 * The built-in authorization server's sign-in and consent pages in a real headless Chromium (the
 * distribution's package, as the GraphiQL browser test uses): the fields are found by their labels, the
 * consent page lists the requested scopes, and Allow lands on the client's loopback redirect with a code
 * that the token endpoint exchanges. A screenshot of each page is kept (artifacts/oauth-*.png). Without
 * /usr/bin/chromium the test is skipped with a message, unless REQUIRE_CHROMIUM=1 (CI sets it).
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
import { pkcePair, startLoopbackCallback } from '../helpers/oauth-browser.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const ARTIFACTS = path.resolve('artifacts');

warnIfNoChromium('OAuth sign-in browser test');

describe('a browser needed for the sign-in page test', () => {
  it.runIf(chromiumRequired)('is installed at /usr/bin/chromium (REQUIRE_CHROMIUM=1)', () => {
    expect(chromiumAvailable, `${CHROMIUM} is missing`).toBe(true);
  });
});

describe.skipIf(!chromiumAvailable).each(dialects)(
  'the OAuth sign-in pages in headless Chromium (%s)',
  (dialect) => {
    let server: TestServer;
    let context: BrowserContext;
    let browser: Awaited<ReturnType<typeof launchChromium>>;
    let callback: Awaited<ReturnType<typeof startLoopbackCallback>>;

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { MCP_AUTH: 'required' } });
      callback = await startLoopbackCallback();
      browser = await launchChromium();
      context = browser.context;
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      await callback?.close();
      await server?.stop();
    });

    it('a user signs in by the labelled fields, sees the scopes, allows, and the client gets a working code', async () => {
      const user = await server.newUser();
      const registered = (await (
        await fetch(`${server.url}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Browser Test App',
            redirect_uris: [callback.url],
            token_endpoint_auth_method: 'none',
          }),
        })
      ).json()) as { client_id: string };
      const pkce = pkcePair();
      const authorize = new URL(`${server.url}/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: callback.url,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        scope: 'movies:read watchlist:write',
        state: 'browser-state',
      }).toString();

      const page = await context.newPage();
      await page.goto(authorize.href);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Sign in to MovieDB');
      expect(await page.getByRole('main').innerText()).toContain('Browser Test App');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `oauth-sign-in-${dialect}.png`), fullPage: true });

      // A wrong password is announced, the page stays usable.
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').innerText()).toBe('Invalid credentials');

      await page.getByLabel('Password').fill('secret123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Allow access?');
      const permissions = page.getByRole('list', { name: 'Requested permissions' }).getByRole('listitem');
      expect(await permissions.allInnerTexts()).toEqual([
        'movies:read: Read the movie catalogue',
        'watchlist:write: Add to and remove from your watch list',
      ]);
      await page.screenshot({ path: path.join(ARTIFACTS, `oauth-consent-${dialect}.png`), fullPage: true });

      await page.getByRole('button', { name: 'Allow' }).click();
      await expect.poll(() => callback.received.length, { timeout: 30_000 }).toBeGreaterThan(0);
      const redirect = callback.received.at(-1)!;
      expect(redirect.get('state')).toBe('browser-state');
      const exchanged = await fetch(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: registered.client_id,
          code: redirect.get('code')!,
          code_verifier: pkce.verifier,
          redirect_uri: callback.url,
        }).toString(),
      });
      expect(exchanged.status).toBe(200);
      expect(((await exchanged.json()) as { scope: string }).scope).toBe('movies:read watchlist:write');
    }, 120_000);
  },
);
