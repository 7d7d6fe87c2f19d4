/**
 * `moviedb-mcp serve` listens for SIGTERM before it loads the server's modules (most of a second), so a
 * signal while it starts drains it to exit 0; before, one in that time killed it (Node's default).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir, spawnCli } from '../helpers/cli.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

const SIGNAL = path.resolve(import.meta.dirname, '../fixtures/signal-at-first-handler.mjs');

describe('moviedb-mcp serve signalled while it starts', () => {
  it('listens for SIGTERM before the server modules load, and a SIGTERM then drains to exit 0', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info' },
      preload: [SIGNAL],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    expect(exit).toEqual({ code: 0, signal: null });
    const handler = /^sigterm-handler: (.*)$/m.exec(stdout)?.[1];
    expect(JSON.parse(handler!)).toEqual({ packages: 0 });
    const messages = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain('draining');
  });
});
