import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { buildSchema } from '../src/graphql/schema.js';
import { createExecutor } from '../src/graphql/executor.js';
import { createContext } from '../src/graphql/context.js';
import { createLogger } from '../src/logger.js';

const config = loadConfig({ NODE_ENV: 'test', PORT: '0', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'b-')), JWT_SECRET: 'x'.repeat(40), LOG_LEVEL: 'silent' });
const server = await startServer(config);
const logger = createLogger('silent');
const executor = createExecutor(buildSchema(), config.graphql, () => {});
const document = executor.parse('{ movie(id: "1") { title releaseYear } }');
const passthrough = { ...server.store, policy: { defaultTimeoutMs: 10000, run: (work: (s: AbortSignal) => Promise<unknown>) => work(new AbortController().signal) } } as unknown as typeof server.store;
async function run(store: typeof server.store) {
  const context = createContext({ store, tokens: server.tokens }, { viewer: null, logger, requestId: 'b' });
  const r = await executor.run({ document, context });
  if (r.errors) throw new Error(JSON.stringify(r.errors));
}
async function measure(store: typeof server.store, n = 5000) {
  for (let i = 0; i < 500; i++) await run(store);
  const t = performance.now();
  for (let i = 0; i < n; i++) await run(store);
  return ((performance.now() - t) * 1000) / n;
}
const a: number[] = [], b: number[] = [];
for (let r = 0; r < 5; r++) { a.push(await measure(passthrough)); b.push(await measure(server.store)); }
console.log('µs per operation (min of 5):', { withoutPolicy: Math.min(...a).toFixed(1), withCockatielPolicy: Math.min(...b).toFixed(1) });
await server.close();
