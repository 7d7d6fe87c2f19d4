/**
 * Headless Chromium for browser tests: the distribution's package at /usr/bin/chromium driven by
 * playwright-core (no browser download), in a fresh profile. Without the browser a browser test is skipped
 * with a message, unless REQUIRE_CHROMIUM=1 (CI sets it), where a missing browser fails.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const chromiumRequired = process.env.REQUIRE_CHROMIUM === '1';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Says why a browser test is skipped (and that CI would fail it instead). */
export function warnIfNoChromium(what: string): void {
  if (chromiumAvailable) return;
  console.warn(
    `${what} skipped: ${CHROMIUM} is missing (apt-get install -y chromium).` +
      (chromiumRequired ? ' REQUIRE_CHROMIUM=1 makes that a failure.' : ''),
  );
}

/** A browser in a profile of its own; `close` ends it and deletes the profile. */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'moviedb-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir of our choosing (a fresh one).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
