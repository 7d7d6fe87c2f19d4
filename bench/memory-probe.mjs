// Loaded with --import into a server by bench/memory-stages.ts (beside bench/heap-probe.mjs): on SIGWINCH
// it collects garbage and prints where the resident set is, as one JSON line: V8's spaces (committed and
// in use), the resident set split into anonymous and file-backed memory (/proc/self/status), and the
// anonymous memory not in V8's heap (the allocator's arenas, native libraries' own, thread stacks).
// With MEMORY_SNAPSHOT_DIR set it also writes a heap snapshot there (bench/heap-snapshot-summary.mjs).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const MiB = 1024 * 1024;
const round = (bytes) => Math.round((bytes / MiB) * 10) / 10;
let snapshots = 0;

function status() {
  const fields = {};
  for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
    const match = /^(VmRSS|RssAnon|RssFile|RssShmem|Threads):\s+(\d+)/.exec(line);
    if (match) fields[match[1]] = match[1] === 'Threads' ? Number(match[2]) : round(Number(match[2]) * 1024);
  }
  return fields;
}

process.on('SIGWINCH', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const spaces = {};
  let v8Committed = 0;
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = [round(space.physical_space_size), round(space.space_used_size)];
    v8Committed += space.physical_space_size;
  }
  const usage = process.memoryUsage();
  const proc = status();
  const snapshot =
    process.env.MEMORY_SNAPSHOT_DIR &&
    writeHeapSnapshot(path.join(process.env.MEMORY_SNAPSHOT_DIR, `stage-${++snapshots}.heapsnapshot`));
  process.stdout.write(
    `${JSON.stringify({
      memoryStage: {
        ...proc,
        heapUsed: round(usage.heapUsed),
        v8Committed: round(v8Committed),
        external: round(usage.external),
        arrayBuffers: round(usage.arrayBuffers),
        anonOutsideV8: round(proc.RssAnon * MiB - v8Committed),
        spaces,
        snapshot,
      },
    })}\n`,
  );
});
