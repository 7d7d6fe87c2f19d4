/**
 * The package's bin, dist/main.js, runs as a program of its own: `npx moviedb-mcp` executes the file it
 * links to, so the build marks it executable (scripts/build.mjs; tsc writes it without the bit).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../../dist/main.js');

describe('the built bin', () => {
  it('runs by its own path, as npx runs it', async () => {
    const { stdout } = await promisify(execFile)(MAIN, ['--version'], {
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
