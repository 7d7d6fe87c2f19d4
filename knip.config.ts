import type { KnipConfig } from 'knip';

/**
 * `npm run knip` (part of `npm run check`): every file, export and dependency is reached from an entry, or
 * it goes. Knip's own plugins add what they read from their configs: package.json's bin and scripts
 * (src/main.ts through dist/main.js, `tsx bench/*.ts`, `tsx scripts/*.ts`), vitest.config.ts (the test
 * files and the global setup) and eslint.config.js. The entries below are the rest: what is run by path.
 */
const config: KnipConfig = {
  entry: [
    'scripts/*.{ts,mjs}',
    'bench/*.{ts,mjs}',
    // Run by hand to rewrite the golden tables (`npx tsx test/http/golden/record-graphql-golden.ts`).
    'test/http/golden/record-*-golden.ts',
    // Preloaded by path into the server by the tests that hide or report the OpenTelemetry packages.
    'test/fixtures/*.mjs',
    // Run by .ci/run's steps: the conformance summary and the real-client drivers.
    '.ci/*.mjs',
    '.ci/clients/*.mjs',
  ],
  project: [
    'src/**/*.ts',
    'scripts/**/*.{ts,mjs}',
    'bench/**/*.{ts,mjs}',
    'test/**/*.{ts,mjs}',
    '.ci/**/*.mjs',
  ],
  // GraphiQL's page is served from these packages' prebuilt files, read by path (src/http/graphiql.ts).
  ignoreDependencies: ['graphiql', 'react', 'react-dom'],
  // `npm run bench` runs on one core through util-linux's taskset where the machine has it; the change
  // feed's infra test reads a socket's keep-alive timer with iproute2's ss.
  ignoreBinaries: ['taskset', 'ss'],
  ignoreIssues: {
    // The drivers import the clients .ci/real-clients.sh installs at pinned versions into a cache folder
    // outside the project, never into package.json.
    '.ci/clients/*.mjs': ['unlisted'],
  },
};

export default config;
