/**
 * Where an idle server's resident set is, stage by stage: started as `npm run bench` starts its servers
 * (bench/start-servers.ts) with bench/memory-probe.mjs loaded beside the heap probe, then measured at
 * listening, after a first request, after a sign-in, after an MCP session, and after sitting idle.
 *
 *   npm run bench:memory [-- postgresql://...]   (a PostgreSQL URL: a fresh schema there, else SQLite)
 *   MEMORY_SNAPSHOT_DIR=/tmp/snaps  also writes a heap snapshot per stage (bench/heap-snapshot-summary.mjs);
 *                                   each snapshot grows the allocator's share, so read the figures without it
 *   MEMORY_SETTLE_SECONDS (10), MEMORY_LOGINS (1, 0 for none), MEMORY_NODE_FLAGS (extra node flags)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFreshStores } from './fresh-stores.js';
import { initialize, token, watchlistItems } from './requests.js';
import { startProcess, type Proc } from './start-process.js';
import { SERVER_ENV } from './start-servers.js';

const settle = Number(process.env.MEMORY_SETTLE_SECONDS ?? 10);
const logins = Number(process.env.MEMORY_LOGINS ?? 1);

async function stage(proc: Proc, name: string): Promise<void> {
  const line = new Promise<string>((resolve) => {
    const onData = (chunk: Buffer) => {
      const found = chunk
        .toString()
        .split('\n')
        .find((l) => l.includes('"memoryStage"'));
      if (!found) return;
      proc.child.stdout.off('data', onData);
      resolve(found);
    };
    proc.child.stdout.on('data', onData);
  });
  proc.child.kill('SIGWINCH');
  const { memoryStage: m } = JSON.parse(await line);
  const spaces = Object.entries(m.spaces as Record<string, [number, number]>)
    .filter(([, [committed]]) => committed >= 0.5)
    .map(([name, [committed, used]]) => `${name.replace('_space', '')} ${committed}/${used}`)
    .join(', ');
  console.log(
    `${name.padEnd(14)} rss ${m.VmRSS} (anon ${m.RssAnon}, file ${m.RssFile}) v8 ${m.v8Committed} ` +
      `(used ${m.heapUsed}) outside v8 ${m.anonOutsideV8} ext ${m.external} threads ${m.Threads}\n` +
      `${''.padEnd(14)} ${spaces}${m.snapshot ? `\n${''.padEnd(14)} ${m.snapshot}` : ''}`,
  );
}

const url = process.argv[2];
const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-memory-'));
const stores = createFreshStores(url);
const proc = await startProcess(
  [
    'node',
    ...(process.env.MEMORY_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    '--expose-gc',
    '--import',
    './bench/heap-probe.mjs',
    '--import',
    './bench/memory-probe.mjs',
    'dist/main.js',
  ],
  { ...SERVER_ENV, MCP_MODE: 'sessions', ...stores.storeIn(dataDir) },
  (line) => (line.includes('"msg":"listening"') ? (JSON.parse(line).port as number) : undefined),
);
try {
  await stage(proc, 'listening');
  await (await fetch(`http://127.0.0.1:${proc.port}/health`)).text();
  await stage(proc, 'first request');
  let bearer = '';
  for (let i = 0; i < logins; i++) bearer = await token(proc.port);
  await stage(proc, 'signed in');
  if (bearer) {
    await watchlistItems(proc.port, bearer, 1);
    await stage(proc, 'watch list');
    const init = await initialize(proc.port, bearer);
    await init.text();
    await stage(proc, 'session');
  }
  await sleep(settle * 1000);
  await stage(proc, `idle ${settle} s`);
} finally {
  proc.child.kill('SIGTERM');
  await new Promise((resolve) => proc.child.once('exit', resolve));
  await stores.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
