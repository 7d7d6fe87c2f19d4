// mcp-remote, the stdio bridge that OAuth-only desktop clients use, driven through stdio by the SDK v1
// Client, against a server that requires a token (MCP_AUTH=required) and has no external issuer: it
// must find the built-in authorization server, register itself (RFC 7591), open the sign-in page in a
// browser, and get its code at its loopback callback. The browser is real: mcp-remote opens URLs with
// the `open` package, whose xdg-open runs $BROWSER with the URL when there is no desktop; our $BROWSER
// only writes the URL down, and headless Chromium (playwright-core) opens it, signs in by the labelled
// fields, and allows on the consent page. Conversion is then the SDK's own, as for the v1 client.
// Usage: node mcp-remote.mjs BASE_URL  (CHROMIUM names the browser; default /usr/bin/chromium)
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { chromium } from 'playwright-core';
import { installedVersion, runDriver, sdkClientFace } from './common.mjs';

const base = process.argv[2];
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const USER = 'dan';
const here = path.dirname(fileURLToPath(import.meta.url));
const validator = new AjvJsonSchemaValidator();

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** Waits (polling) until the file holds a line, for at most `ms`. */
async function firstLine(file, ms) {
  for (const started = Date.now(); Date.now() - started < ms;) {
    if (existsSync(file)) {
      const line = readFileSync(file, 'utf8').split('\n')[0];
      if (line) return line;
    }
    await delay(100);
  }
  throw new Error(`mcp-remote opened no browser within ${ms / 1000} s`);
}

/** Opens the URL mcp-remote asked for in headless Chromium, signs in and allows; returns the scopes shown. */
async function signInInChromium(url) {
  const started = Date.now();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Sign in to MovieDB' }).waitFor();
    await page.getByLabel('Username').fill(USER);
    await page.getByLabel('Password').fill('password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
    const scopes = await page
      .getByRole('list', { name: 'Requested permissions' })
      .locator('code')
      .allInnerTexts();
    await page.getByRole('button', { name: 'Allow' }).click();
    // The consent form redirects to mcp-remote's loopback callback, which takes the code.
    await page.waitForURL(/\/oauth\/callback\?/);
    await page.waitForLoadState();
    return { scopes, browser: browser.version(), seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await browser.close();
  }
}

const work = mkdtempSync(path.join(tmpdir(), 'moviedb-mcp-remote-'));
const opened = path.join(work, 'opened');
const opener = path.join(work, 'browser');
writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
chmodSync(opener, 0o755);
let stderr = '';

try {
  await runDriver(
    {
      client: 'mcp-remote (stdio bridge)',
      version: installedVersion('mcp-remote'),
      how: 'stdio ↔ Streamable HTTP, OAuth sign-in in headless Chromium',
    },
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          path.join(here, '..', 'node_modules', 'mcp-remote', 'dist', 'proxy.js'),
          `${base}/mcp`,
          String(await freePort()),
        ],
        // Its sign-in state goes to a folder of this run's, so every run signs in afresh.
        env: { ...process.env, BROWSER: opener, MCP_REMOTE_CONFIG_DIR: path.join(work, 'auth') },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk) => {
        stderr = (stderr + chunk).slice(-4000);
      });
      const client = new Client({ name: 'moviedb-ci-mcp-remote', version: '1.0.0' });
      const signIn = firstLine(opened, 30_000).then(signInInChromium);
      let signedIn;
      try {
        [, signedIn] = await Promise.all([client.connect(transport), signIn]);
      } catch (error) {
        await client.close().catch(() => {});
        const lines = stderr.split('\n').filter((line) => line.trim());
        const errors = lines.filter((line) => /error/i.test(line));
        throw new Error(
          `${error.message}; mcp-remote said: ${(errors.length ? errors : lines).slice(-4).join(' | ')}`,
        );
      }
      return {
        ...sdkClientFace(client, validator),
        note: `signed in as ${USER} in Chromium ${signedIn.browser} (${signedIn.seconds} s, browser start included), consented to ${signedIn.scopes.join(' ')}`,
      };
    },
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
