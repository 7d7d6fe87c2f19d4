import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three projects, told apart by the file name, so a new test's place follows from what it needs:
 * `*.unit.test.ts` calls pure functions (no server, no database, no network: seconds for all of them),
 * `*.infra.test.ts` needs PostgreSQL, Redis, nginx or Chromium beyond the embedded SQLite (required in
 * CI, skipped locally with a summary of what was missing), and every other `*.test.ts` goes through the
 * front door: a real server on port 0 on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.
 * `npx vitest run --project unit` is the fast loop.
 */
const UNIT = 'test/**/*.unit.test.ts';
const INFRA = 'test/**/*.infra.test.ts';

export default defineConfig({
  resolve: {
    // Node loads graphql 16 through its CommonJS main (it has no "exports"); Vite would pick the .mjs
    // build and give our code a second graphql instance beside the one the libraries use.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // Each file starts its own server on port 0 with its own database, so files run in parallel safely.
    pool: 'forks',
    // One fork per core. Vitest's default keeps one core free (cores - 1), which on CI's two cores is a
    // single fork: the files ran one after another while most of them wait on sockets, timers and the
    // database rather than on the CPU.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // build-dist first: the command-line tests run dist/main.js.
    globalSetup: ['test/helpers/build-dist.ts', 'test/helpers/infra-summary.ts'],
    projects: [
      // Pure functions share nothing between files: one module graph for all of them, not a fresh fork
      // and a fresh import of src/ per file.
      { extends: true, test: { name: 'unit', include: [UNIT], testTimeout: 10_000, isolate: false } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'], exclude: [UNIT, INFRA] } },
      { extends: true, test: { name: 'infra', include: [INFRA] } },
    ],
  },
});
