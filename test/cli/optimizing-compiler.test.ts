/**
 * `moviedb-mcp serve` holds V8's optimizing compiler off while it starts (src/cli/optimizing-compiler.ts)
 * and lets go once it listens: nothing is optimized before the listening line, and the request path is
 * optimized under load after it. The second half is what throughput depends on; it relies on V8 reading
 * `--turbofan` at each tier-up decision, which a Node upgrade could change.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir, spawnCli, waitForLine } from '../helpers/cli.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

const TRACE = path.resolve(import.meta.dirname, '../fixtures/trace-optimizations.mjs');
const OPTIMIZED = /^\[completed optimizing .*\(target TURBOFAN\)/;

describe('the optimizing compiler of a started server', () => {
  it('optimizes nothing while the server starts, and the request path once it serves', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info' },
      preload: [TRACE],
    });
    const lines: string[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
    });
    try {
      const listening = JSON.parse(await waitForLine(child, /"msg":"listening"/)) as { url: string };
      const atListening = lines.findIndex((line) => line.includes('"msg":"listening"'));
      expect(lines.slice(0, atListening).filter((line) => OPTIMIZED.test(line))).toEqual([]);

      // Each request runs the same HTTP and GraphQL code: a few hundred make some of it hot.
      const optimizedSince = () => lines.slice(atListening).filter((line) => OPTIMIZED.test(line));
      for (let i = 0; i < 2000 && optimizedSince().length === 0; i++) {
        const response = await fetch(`${listening.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        expect(response.status).toBe(200);
        await response.text();
      }
      expect(optimizedSince().length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });
});
