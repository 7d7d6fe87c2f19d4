/**
 * The rule each feature follows when Redis is away is one table in code (REDIS_DEGRADATION) and the
 * same table in docs/deployment.md ("What Redis holds, and what happens when it is away").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REDIS_DEGRADATION } from '../../src/shared-state/degradation.js';

const page = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');

/** The rows of the first table after `heading`, as trimmed cells (links in the first cell dropped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  expect(start, `"${heading}" in docs/deployment.md`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const table = lines.slice(
    first,
    lines.findIndex((line, i) => i > first && !line.startsWith('|')),
  );
  return table.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim())
      .map((cell, i) => (i === 0 ? cell.replace(/\s*\(\[[^\]]*\]\([^)]*\)\)/g, '') : cell)),
  );
}

describe('the Redis degradation table', () => {
  it('in docs/deployment.md is the one in src/shared-state/degradation.ts, row for row', () => {
    const rows = tableAfter(page, '### What Redis holds, and what happens when it is away');
    expect(rows).toEqual(
      REDIS_DEGRADATION.map(({ feature, withRedis, redisUnreachable }) => [
        feature,
        withRedis,
        redisUnreachable,
      ]),
    );
  });
});
