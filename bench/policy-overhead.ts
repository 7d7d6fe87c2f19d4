/**
 * What the recovery policy (src/store/store-policy.ts, cockatiel) costs per call: its deadline against the
 * hand-rolled one it replaced, and one small operation through the executor with and without the policy.
 * Run: npx tsx bench/policy-overhead.ts (prints the best of 5 rounds, in µs per call).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TimeoutStrategy, timeout } from 'cockatiel';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/graphql/context.js';
import { createExecutor } from '../src/graphql/executor.js';
import { buildSchema } from '../src/graphql/schema.js';
import { createLogger } from '../src/logger.js';
import { linkSignals } from '../src/mcp/abort.js';
import { startServer } from '../src/server.js';
import type { Store } from '../src/store/index.js';

async function best(fn: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < n / 10; i++) await fn();
  let result = Infinity;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < n; i++) await fn();
    result = Math.min(result, ((performance.now() - started) * 1000) / n);
  }
  return Math.round(result * 10) / 10;
}

const work = async () => 1;
const callerSignal = () => new AbortController().signal;

/** The deadline of the old src/mcp/call-tool.ts: a linked signal, a timer and a race. */
async function handRolledDeadline() {
  const linked = linkSignals(callerSignal());
  const timer = setTimeout(() => linked.abort(new Error('deadline')), 10_000);
  try {
    const run = work();
    return await new Promise((resolve, reject) => {
      const onAbort = () => reject(linked.signal.reason);
      linked.signal.addEventListener('abort', onAbort, { once: true });
      run.then(resolve, reject).finally(() => linked.signal.removeEventListener('abort', onAbort));
    });
  } finally {
    clearTimeout(timer);
    linked.release();
  }
}

const deadline = (abortOnReturn: boolean) => () =>
  timeout(10_000, { strategy: TimeoutStrategy.Aggressive, abortOnReturn }).execute(work, callerSignal());

const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-'));
const config = loadConfig({
  NODE_ENV: 'test',
  PORT: '0',
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789',
  LOG_LEVEL: 'silent',
});
const server = await startServer(config);
const logger = createLogger('silent');
const executor = createExecutor(buildSchema(), config.graphql, () => undefined);
const document = executor.parse('{ movie(id: "1") { title releaseYear } }');
/** The same store with a policy that only runs the work: what execution costs without it. */
const unguarded = {
  ...server.store,
  policy: { ...server.store.policy, run: (run: (s: AbortSignal) => Promise<unknown>) => run(callerSignal()) },
} as Store;
const operation = (store: Store) => async () => {
  const context = createContext(
    { store, tokens: server.tokens },
    { viewer: null, logger, requestId: 'bench' },
  );
  const result = await executor.run({ document, context });
  if (result.errors) throw new Error(JSON.stringify(result.errors));
};

console.log({
  'deadline, hand-rolled (old call-tool.ts)': await best(handRolledDeadline, 100_000),
  'deadline, cockatiel (abortOnReturn off, as used)': await best(deadline(false), 100_000),
  'deadline, cockatiel (abortOnReturn on, its default)': await best(deadline(true), 100_000),
  'operation, executor without the policy': await best(operation(unguarded), 5_000),
  'operation, executor with the policy': await best(operation(server.store), 5_000),
});
await server.close();
rmSync(dataDir, { recursive: true, force: true });
