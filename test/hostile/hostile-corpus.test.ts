/**
 * The main proof: a generated corpus of hostile requests over /graphql (POST and GET), /mcp (in
 * sessions and without) and raw HTTP, on each store. Every answer must be below 500, not HTML, free of
 * leaks (stack frames, paths, SQL, library names), never JSON-RPC -32603 nor INTERNAL_ERROR, and arrive
 * within a second; afterwards the process still answers /healthz and its heap is back near where it began.
 * Failures are printed grouped by category, so what remains to fix is visible at a glance.
 * The parts: hostile-cases.ts (the corpus), corpus-tokens.ts and corpus-sessions.ts (what it is sent
 * with), send-hostile-case.ts (one case sent) and problems-of.ts (one answer judged).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { openCorpusSessions } from './corpus-sessions.js';
import { corpusTokens } from './corpus-tokens.js';
import { generateHostileCorpus, type HostileCase } from './hostile-cases.js';
import { problemsOf, RAW_UNANSWERED } from './problems-of.js';
import { sendHostileCase } from './send-hostile-case.js';

/** Requests in flight at once: enough to overlap, few enough for a shared two-core machine. */
const CONCURRENCY = 8;
/**
 * Heap after GC may exceed its start by this much. Measured: about 2 to 3 MB over a full pass once the
 * bounded caches are warm (a few sessions opened by valid tokens stay until they idle out).
 */
const HEAP_MARGIN_BYTES = 24 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Failure {
  category: string;
  name: string;
  problems: string[];
}

/** A fixed shuffle (mulberry32), so heavy cases of one family do not all queue behind each other. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

describe.each(dialects)('the hostile corpus on %s', (dialect) => {
  let server: TestServer;
  let cases: HostileCase[] = [];
  const failures: Failure[] = [];
  const counts = new Map<string, number>();
  let heapBefore = 0;
  let heapAfter = 0;
  let slowest = 0;
  const timings: Array<[number, string]> = [];
  const unanswered: string[] = [];

  beforeAll(async () => {
    // Rate limits (another part of this issue) would answer most of the corpus with 429 and keep it
    // from reaching the code under test; the corpus switches them off. Unknown settings are ignored.
    server = await startTestServer(dialect, { env: { RATE_LIMITS: 'off', MCP_SCHEMA_TOOLS: 'read' } });
    const userToken = await server.login('user', 'user123');
    const tokens = await corpusTokens(userToken);
    const sessions = await openCorpusSessions(server.url, userToken);
    cases = shuffled(generateHostileCorpus(tokens), 6);
    for (const testCase of cases) counts.set(testCase.category, (counts.get(testCase.category) ?? 0) + 1);

    const run = async (testCase: HostileCase) => {
      const answer = await sendHostileCase(server, testCase, sessions, userToken);
      if (answer === RAW_UNANSWERED) unanswered.push(testCase.name);
      if (typeof answer !== 'string') {
        slowest = Math.max(slowest, answer.ms);
        timings.push([answer.ms, `${testCase.category} | ${testCase.name.slice(0, 60)}`]);
      }
      const problems = problemsOf(testCase, answer);
      if (problems.length > 0) failures.push({ category: testCase.category, name: testCase.name, problems });
    };
    // A warm-up pass over every third case fills the bounded caches (parse cache, JIT, pools) first, so
    // the heap comparison around the full pass measures growth, not first-use allocation.
    await inPool(
      cases.filter((_, i) => i % 3 === 0),
      CONCURRENCY,
      run,
    );
    gc();
    heapBefore = process.memoryUsage().heapUsed;
    failures.length = 0;
    timings.length = 0;
    unanswered.length = 0;
    slowest = 0;
    await inPool(cases, CONCURRENCY, run);
    gc();
    heapAfter = process.memoryUsage().heapUsed;

    const byCategory = new Map<string, Failure[]>();
    for (const failure of failures) {
      byCategory.set(failure.category, [...(byCategory.get(failure.category) ?? []), failure]);
    }
    const lines = [
      `hostile corpus on ${dialect}: ${cases.length} requests, ${failures.length} failing, slowest ${Math.round(slowest)} ms, heap ${((heapAfter - heapBefore) / 1048576).toFixed(1)} MB over its start`,
    ];
    for (const [category, list] of byCategory) {
      lines.push(`  ${category}: ${list.length} of ${counts.get(category)} failing`);
      for (const failure of list.slice(0, 12)) {
        lines.push(`    - ${failure.name.slice(0, 90)}: ${failure.problems.join('; ')}`);
      }
      if (list.length > 12) lines.push(`    … and ${list.length - 12} more`);
    }
    console.log(lines.join('\n'));
    timings.sort((a, b) => b[0] - a[0]);
    const slowestFive = timings.slice(0, 5).map(([ms, name]) => `  ${Math.round(ms)} ms ${name}`);
    console.log(`raw cases the server closed without an answer: ${unanswered.join(', ') || 'none'}`);
    console.log(`slowest answers on ${dialect}:\n${slowestFive.join('\n')}`);
  }, 240_000);
  afterAll(() => server?.stop());

  it('holds at least 800 requests over /graphql (POST and GET), /mcp and raw HTTP', () => {
    expect(cases.length).toBeGreaterThanOrEqual(800);
    const kinds = new Set(
      cases.map((c) =>
        c.kind === 'raw' ? 'raw' : `${c.method === 'GET' ? 'GET' : 'POST'} ${c.path.split('?')[0]}`,
      ),
    );
    expect([...kinds]).toEqual(expect.arrayContaining(['raw', 'POST /graphql', 'GET /graphql', 'POST /mcp']));
  });

  it('every answer is below 500, not HTML, leaks nothing, is never -32603 or INTERNAL_ERROR, within 1 s', () => {
    const summary = failures.map((f) => `${f.category} | ${f.name.slice(0, 80)}: ${f.problems.join('; ')}`);
    expect(summary).toEqual([]);
  });

  it('the process is alive afterwards and its heap is back near where it began', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(heapAfter - heapBefore).toBeLessThan(HEAP_MARGIN_BYTES);
  });
});
