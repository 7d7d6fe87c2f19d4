/**
 * The one recovery policy, seen from both endpoints, against PostgreSQL behind the loopback proxy:
 * /graphql has a deadline; an outage and a freeze under load give only classified errors and no hang;
 * calls recover within 1 s of /readyz turning ready; a trial that hangs or calls cancelled meanwhile never
 * wedge the circuit.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import { classificationOf, startTestServer } from '../helpers/server.js';
import { pace, waitFor } from '../helpers/time.js';

const TIMEOUT_MS = 1500;
/** Slack for a loaded 2-core machine on top of the configured deadline. */
const MARGIN_MS = 1500;

interface Sample {
  caller: string;
  start: number;
  end: number;
  outcome: string;
}

describe.skipIf(!databaseUrl)('recovery on both endpoints', () => {
  let env: ProxiedServer;
  let client: Client;

  beforeAll(async () => {
    // Default circuit settings (STORE_CIRCUIT_PROBE_MS, STORE_CIRCUIT_FAILURES): the bounds hold with them.
    env = await startProxiedServer({
      MCP_TOOL_TIMEOUT_MS: String(TIMEOUT_MS),
      GRAPHQL_TIMEOUT_MS: String(TIMEOUT_MS),
      // The concurrent callers are anonymous sessions from one address: more than its default cap.
      MCP_MAX_SESSIONS_PER_ADDRESS: '50',
      // Every read must reach the store here: a shared result served from the cache would not.
      RESULT_CACHE_MB: '0',
    });
    client = await connectClient(env.server.url);
  });
  afterAll(async () => {
    await client.close();
    await env.stop();
  });

  /** Polls /readyz until it answers 200 and returns that moment. */
  async function readyAt(): Promise<number> {
    await waitFor('/readyz to answer 200', () => env.ready(), { timeoutMs: 20_000, intervalMs: 25 });
    return performance.now();
  }

  /** The circuit's state changes logged since line `from`, with their times. */
  const circuitChanges = (from = 0) =>
    env.logs
      .lines()
      .slice(from)
      .filter((l) => l.circuit)
      .map((l) => ({ circuit: l.circuit as string, time: l.time as number }));

  async function graphqlOutcome(query: string): Promise<string> {
    const response = await fetch(`${env.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    if (response.status >= 500) return `HTTP ${response.status}`;
    const body = (await response.json()) as { errors?: { extensions?: { classification?: string } }[] };
    return body.errors?.[0]?.extensions?.classification ?? 'OK';
  }

  async function toolOutcome(mcp: Client, name: string, args: Record<string, unknown>): Promise<string> {
    const result = await callTool(mcp, name, args);
    return result.isError ? (result.structuredContent.errors[0]?.classification ?? 'ERROR') : 'OK';
  }

  it('a /graphql operation with the backend frozen answers TIMEOUT within GRAPHQL_TIMEOUT_MS plus a margin', async () => {
    env.proxy.stall();
    const started = performance.now();
    const response = await env.server.graphql('{ movie(id: "7") { title directors { name } } }');
    const elapsed = performance.now() - started;
    env.proxy.resume();
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    expect(response.body.errors![0]).toMatchObject({
      message: expect.stringMatching(
        /did not finish within 1\.5 s and was abandoned; it is safe to call it again/,
      ),
      extensions: { classification: 'TIMEOUT', retryable: true, timeoutMs: TIMEOUT_MS },
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // One slow call is a timeout, not an outage: the circuit stayed closed.
    expect(env.logs.lines().some((l) => l.circuit === 'open')).toBe(false);
    expect(await graphqlOutcome('{ movie(id: "7") { title } }')).toBe('OK');
  });

  it('PostgreSQL cut and then frozen under 20 concurrent callers: only UNAVAILABLE or TIMEOUT meanwhile, no hang, and every call started 1 s after /readyz turns ready succeeds', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => connectClient(env.server.url)));
    const samples: Sample[] = [];
    let running = true;
    const loop = async (caller: string, call: (i: number) => Promise<string>) => {
      for (let i = 0; running; i++) {
        const start = performance.now();
        let outcome: string;
        try {
          outcome = await call(i);
        } catch (error) {
          outcome = `THREW ${(error as Error).message}`;
        }
        samples.push({ caller, start, end: performance.now(), outcome });
        await pace(40);
      }
    };
    const loops = [
      ...clients.map((mcp, n) =>
        loop(`tool${n}`, (i) =>
          i % 2 === 0
            ? toolOutcome(mcp, 'getMovie', { id: String(1 + ((n + i) % 40)) })
            : toolOutcome(mcp, 'recommendMoviesForMood', { mood: 'COMEDY' }),
        ),
      ),
      ...Array.from({ length: 10 }, (_, n) =>
        loop(`graphql${n}`, (i) =>
          graphqlOutcome(`{ movie(id: "${1 + ((n + i) % 40)}") { title directors { name } reviewCount } }`),
        ),
      ),
    ];

    const callers = loops.length;
    /** How many callers have finished a call that started at or after `at`, with this outcome if given. */
    const callersSince = (at: number, outcome?: string) =>
      new Set(
        samples
          .filter((s) => s.start >= at && (outcome === undefined || s.outcome === outcome))
          .map((s) => s.caller),
      ).size;
    const phase = { timeout: 20_000, interval: 25 };
    await expect.poll(() => callersSince(0, 'OK'), phase).toBe(callers);
    // Stopped: connections cut and refused, until callers are refused and the circuit has opened.
    const cutAt = performance.now();
    const linesAtCut = env.logs.lines().length;
    env.proxy.down();
    await expect
      .poll(
        () =>
          callersSince(cutAt, 'UNAVAILABLE') > 0 &&
          circuitChanges(linesAtCut).some((c) => c.circuit === 'open'),
        phase,
      )
      .toBe(true);
    env.proxy.up();
    const readyAfterCut = await readyAt();
    // Every caller has finished a call started inside the recovery bound checked below.
    await expect.poll(() => callersSince(readyAfterCut + 1000), phase).toBe(callers);
    // Frozen: nothing moves on the existing connections, until calls started in it time out.
    const frozenAt = performance.now();
    env.proxy.stall();
    await expect.poll(() => callersSince(frozenAt, 'TIMEOUT'), phase).toBeGreaterThan(0);
    env.proxy.resume();
    const readyAfterFreeze = await readyAt();
    await expect.poll(() => callersSince(readyAfterFreeze + 1000), phase).toBe(callers);
    running = false;
    await Promise.all(loops);
    await Promise.all(clients.map((c) => c.close()));

    const outcomes = new Set(samples.map((s) => s.outcome));
    // Only success or a classified, retryable error: never INTERNAL_ERROR, a 5xx or a thrown call.
    expect([...outcomes].filter((o) => !['OK', 'UNAVAILABLE', 'TIMEOUT'].includes(o))).toEqual([]);
    // The test saw both failure kinds, so it proved something.
    expect(samples.some((s) => s.start >= cutAt && s.outcome === 'UNAVAILABLE')).toBe(true);
    expect(samples.some((s) => s.start >= frozenAt && s.outcome === 'TIMEOUT')).toBe(true);
    expect(env.logs.lines().some((l) => l.circuit === 'open')).toBe(true);
    // No hang: every call answered within its deadline plus a margin.
    const slowest = Math.max(...samples.map((s) => s.end - s.start));
    expect(slowest).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // Recovery within 1 s of /readyz turning ready, on both endpoints (calls still running when the
    // freeze began may rightly time out).
    const failedLate = samples.filter(
      (s) =>
        s.outcome !== 'OK' &&
        ((s.start >= readyAfterCut + 1000 && s.end < frozenAt) || s.start >= readyAfterFreeze + 1000),
    );
    expect(failedLate).toEqual([]);
    for (const caller of ['tool0', 'graphql0']) {
      expect(samples.some((s) => s.caller === caller && s.start >= readyAfterFreeze + 1000)).toBe(true);
    }
    console.info(
      `load: ${samples.length} calls, outcomes ${JSON.stringify(countBy(samples))}, slowest ${Math.round(slowest)} ms, ` +
        `first success after ready: cut +${firstSuccessAfter(samples, readyAfterCut)} ms, ` +
        `freeze +${firstSuccessAfter(samples, readyAfterFreeze)} ms`,
    );
  });

  it('a trial that hangs and calls cancelled while the circuit is open do not wedge it: calls recover on their own once the database answers', async () => {
    // Open the circuit with an outage.
    env.proxy.down();
    await expect
      .poll(() => toolOutcome(client, 'getMovie', { id: '1' }), { timeout: 10_000, interval: 50 })
      .toBe('UNAVAILABLE');
    await expect
      .poll(async () => {
        const result = await callTool(client, 'getMovie', { id: '1' });
        return result.structuredContent.errors[0]?.message ?? '';
      })
      .toMatch(/calls are paused/);
    // The same circuit answers /graphql: it fails fast too.
    const graphql = await env.server.graphql('{ movie(id: "1") { title } }');
    expect(graphql.body.errors![0]).toMatchObject({
      message: expect.stringMatching(/calls are paused/),
      extensions: { classification: 'UNAVAILABLE', retryAfterSeconds: 1 },
    });
    // The database is reachable again but frozen: the probes (the circuit's trials) hang and time out.
    const linesAtStall = env.logs.lines().length;
    env.proxy.up();
    env.proxy.stall();
    // A trial begins (half-open) and is given up only at the probe's own 1 s deadline (open again).
    const hungTrial = () =>
      circuitChanges(linesAtStall).some(
        (change, i, all) =>
          change.circuit === 'half-open' &&
          all[i + 1]?.circuit === 'open' &&
          all[i + 1]!.time - change.time >= 900,
      );
    await expect.poll(hungTrial, { timeout: 10_000 }).toBe(true);
    // Calls made meanwhile, then cancelled by their clients.
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const pending = client
        .callTool({ name: 'getMovie', arguments: { id: '2' } }, undefined, { signal: controller.signal })
        .catch(() => 'cancelled');
      controller.abort('changed my mind');
      await pending;
    }
    env.proxy.resume();
    // No /readyz poll here: the policy's own probe closes the circuit.
    const resumed = performance.now();
    await expect
      .poll(() => toolOutcome(client, 'getMovie', { id: '3' }), { timeout: 5000, interval: 50 })
      .toBe('OK');
    console.info(`circuit closed ${Math.round(performance.now() - resumed)} ms after the database answered`);
    expect(
      env.logs
        .lines()
        .filter((l) => l.circuit)
        .at(-1)?.circuit,
    ).toBe('closed');
    expect(await graphqlOutcome('{ movie(id: "3") { title } }')).toBe('OK');
  });
});

describe.skipIf(!databaseUrl)('statement_timeout', () => {
  it('a query frozen on a lock is cancelled by PostgreSQL after DATABASE_STATEMENT_TIMEOUT_MS: TIMEOUT, and its pooled connection is free again', async () => {
    // One pooled connection: the query after the frozen one can only run if that connection came back.
    const server = await startTestServer('postgres', {
      env: { DATABASE_STATEMENT_TIMEOUT_MS: '500', GRAPHQL_TIMEOUT_MS: '8000', DATABASE_POOL_SIZE: '1' },
    });
    const locker = new pg.Client({ connectionString: databaseUrl });
    try {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(
        server.store.handle.db,
      );
      await locker.connect();
      await locker.query('begin');
      await locker.query(`lock table "${rows[0]!.schema}".movies in access exclusive mode`);
      const started = performance.now();
      const frozen = await server.graphql('{ movie(id: "1") { title } }');
      const elapsed = performance.now() - started;
      expect(classificationOf(frozen)).toBe('TIMEOUT');
      expect(frozen.body.errors![0]!.message).toBe('The database did not answer in time; try again shortly');
      // PostgreSQL answered, long before the operation's own deadline.
      expect(elapsed).toBeGreaterThanOrEqual(400);
      expect(elapsed).toBeLessThan(8000);
      await locker.query('rollback');
      expect(classificationOf(await server.graphql('{ movie(id: "2") { title } }'))).toBeUndefined();
    } finally {
      await locker.end();
      await server.stop();
    }
  });
});

function countBy(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) counts[s.outcome] = (counts[s.outcome] ?? 0) + 1;
  return counts;
}

function firstSuccessAfter(samples: Sample[], moment: number): number {
  const first = samples
    .filter((s) => s.outcome === 'OK' && s.start >= moment)
    .sort((a, b) => a.end - b.end)[0];
  return first ? Math.round(first.end - moment) : -1;
}
