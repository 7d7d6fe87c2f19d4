import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node loads graphql 16 through its CommonJS main (it has no "exports"); Vite would pick the .mjs
    // build and give our code a second graphql instance beside the one the libraries use.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts its own server on port 0 with its own database, so files run in parallel safely.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
