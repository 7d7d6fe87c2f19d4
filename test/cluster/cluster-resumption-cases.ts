/**
 * Streams cut and a replica killed behind the load balancer of `npm run cluster` (docs/deployment.md,
 * Several replicas): two replicas behind nginx with round robin and no affinity, on PostgreSQL and Redis.
 * A 2025 call whose response stream is cut resumes with Last-Event-ID on the other replica (one with
 * progress, through the SDK, and a plain one, on the lean path); a replica killed with SIGKILL while it
 * runs calls loses no session and leaves no call hanging, and nginx does not re-send the write it held to
 * the survivor (a POST that reached a replica is never retried). Figures are printed as they are measured.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import type { TestCluster } from '../helpers/cluster.js';
import { callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { modernRequest } from '../helpers/mcp-modern.js';
import {
  connectBehindCutter,
  HANG_BOUND_MS,
  QUICK_RECONNECT,
  REVIEWS_QUERY,
  servedBy,
  SUMMARY,
} from './cluster-probes.js';

/** The cases of cluster.infra.test.ts that cut streams and, last, kill a replica: run after the others. */
export function clusterResumptionCases(current: () => TestCluster): void {
  let cluster: TestCluster;
  beforeAll(() => {
    cluster = current();
  });

  it('a 2025 call whose response stream is cut mid-call resumes with Last-Event-ID on the other replica, and gets the rest and the result', async () => {
    const { token } = await cluster.newUser();
    const { front, sent, client } = await connectBehindCutter(cluster, token);
    try {
      // Hold the call in the replica that runs it, right after its first progress event.
      const traps = cluster.databaseProxies.map((proxy, index) =>
        proxy.stallOn(REVIEWS_QUERY).then(() => index),
      );
      const progress: string[] = [];
      let reported!: () => void;
      const firstProgress = new Promise<void>((resolve) => (reported = resolve));
      const call = client.callTool(SUMMARY, undefined, {
        timeout: HANG_BOUND_MS,
        onprogress: (p) => {
          progress.push(p.message ?? '');
          reported();
        },
      });
      const running = await Promise.race(traps);
      cluster.databaseProxies.forEach((proxy) => proxy.disarm());
      await firstProgress;
      expect(front.cutWhere(/"tools\/call"/)).toBe(1);
      cluster.databaseProxies[running]!.resume();

      const result = (await call) as unknown as {
        isError?: boolean;
        structuredContent: Envelope<{ reviewCount: number; averageScore: number }>;
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data).toMatchObject({ reviewCount: 8, averageScore: 9.375 });
      expect(progress).toEqual(['Loading reviews', 'Summarising reviews', 'Done']);

      const resumed = sent.filter((request) => request.lastEventId !== null);
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      await client.close();
      const runner = cluster.replicas[running]!.name;
      const resumer = servedBy(cluster, resumed[0]!.requestId);
      console.log(
        `[cluster] cut stream: the call ran on ${runner}; Last-Event-ID resumption served by ${resumer}`,
      );
      expect(resumer).toBeDefined();
      expect(resumer).not.toBe(runner);
    } finally {
      await client.close().catch(() => undefined);
      await front.close();
    }
  });

  it('a plain 2025 call (the lean path: no progress) whose response stream is cut mid-call resumes with Last-Event-ID on the other replica and gets its result', async () => {
    const { token } = await cluster.newUser();
    const { front, sent, client } = await connectBehindCutter(cluster, token);
    try {
      // Held in the replica that runs it once its query reaches the database (movie 2: not cached yet).
      const traps = cluster.databaseProxies.map((proxy, index) =>
        proxy.stallOn(REVIEWS_QUERY).then(() => index),
      );
      const call = client.callTool(
        { name: 'summarizeMovieReviews', arguments: { movieId: '2' } },
        undefined,
        {
          timeout: HANG_BOUND_MS,
        },
      );
      const running = await Promise.race(traps);
      cluster.databaseProxies.forEach((proxy) => proxy.disarm());
      // The priming event went out before the query: it must have reached the client through nginx.
      await expect.poll(() => front.answered(/"tools\/call"/, /^id: /m)).toBe(1);
      expect(front.cutWhere(/"tools\/call"/)).toBe(1);
      cluster.databaseProxies[running]!.resume();

      const result = (await call) as unknown as {
        isError?: boolean;
        structuredContent: Envelope<{ movieId: string }>;
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data).toMatchObject({ movieId: '2' });
      const resumed = sent.filter((request) => request.lastEventId !== null);
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      // The lean path's priming event id: no entry is stored for it in the Redis Stream.
      expect(resumed[0]!.lastEventId).toMatch(/_0-1$/);
      await client.close();
      const runner = cluster.replicas[running]!.name;
      const resumer = servedBy(cluster, resumed[0]!.requestId);
      console.log(
        `[cluster] cut plain call: ran on ${runner}; Last-Event-ID resumption served by ${resumer}`,
      );
      expect(resumer).toBeDefined();
      expect(resumer).not.toBe(runner);
    } finally {
      await client.close().catch(() => undefined);
      await front.close();
    }
  });

  // Last: it leaves one replica.
  it('SIGKILL of a replica running calls: a 2025 call fails cleanly within bounds and its retry succeeds, no session is lost; a 2026 write fails, is not re-sent, and its retry goes to the survivor', async () => {
    const { token, username } = await cluster.newUser();
    // Several sessions, opened in turn so that both replicas created some.
    const clients: Client[] = [];
    for (let i = 0; i < 4; i += 1)
      clients.push(await connectClient(cluster.url, token, { reconnectionOptions: QUICK_RECONNECT }));
    const write2026 = async (movieId: string) => {
      const { headers, body } = modernRequest(1, 'tools/call', {
        name: 'addToWatchlist',
        arguments: { subject: { movieId } },
      });
      const response = await fetch(`${cluster.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body,
      });
      const answer = (await response.json()) as {
        result?: { isError?: boolean };
        error?: { data?: unknown };
      };
      return { movieId, status: response.status, body: answer };
    };
    const rowsFor = async (movieId: string) =>
      (
        await cluster.query(
          `select 1 from watchlist_items w join users u on u.id = w.user_id
            where u.username = $1 and w.movie_id = $2`,
          [username, Number(movieId)],
        )
      ).length;
    try {
      const traps = cluster.databaseProxies.map((proxy, index) =>
        proxy.stallOn(REVIEWS_QUERY).then(() => index),
      );
      const started = Date.now();
      const outcome = clients[0]!.callTool(SUMMARY, undefined, { timeout: HANG_BOUND_MS }).then(
        (result) => ({ result, error: undefined }),
        (error: unknown) => ({ result: undefined, error }),
      );
      const running = await Promise.race(traps);
      cluster.databaseProxies.forEach((proxy) => proxy.disarm());
      const victim = cluster.replicas[running]!;
      // Two 2026-07-28 writes at once: round robin gives one to each replica; the survivor answers its
      // one, the victim's stalled database holds the other.
      const writes = [write2026('20'), write2026('21')];
      const answeredFirst = await Promise.race(writes);
      expect(answeredFirst.status).toBe(200);
      const held = writes[answeredFirst.movieId === '20' ? 1 : 0]!;

      victim.signal('SIGKILL');
      expect(await victim.exited).toBe('SIGKILL');
      // Its connections to PostgreSQL close once bytes move again (its transactions roll back).
      cluster.databaseProxies[running]!.resume();

      const { result, error } = await outcome;
      const settledMs = Date.now() - started;
      const hung = error instanceof McpError && error.code === ErrorCode.RequestTimeout;
      console.log(
        `[cluster] SIGKILL of ${victim.name} during a call: the call settled in ${settledMs} ms as ` +
          (error ? `an error (${error instanceof Error ? error.message : String(error)})` : 'a result') +
          `; hung calls: ${hung ? 1 : 0}`,
      );
      expect(hung).toBe(false);
      // Clean: the answer the survivor gives for a call whose replica stopped, a JSON-RPC error an agent
      // can act on (classified UNAVAILABLE: a read can be retried, a write checked first).
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).data).toMatchObject({ classification: 'UNAVAILABLE' });
      expect(result).toBeUndefined();
      const retry = await callTool<{ reviewCount: number }>(clients[0]!, 'summarizeMovieReviews', {
        movieId: '1',
      });
      expect(retry.isError).toBe(false);
      expect(retry.structuredContent.data.reviewCount).toBe(8);

      // The 2026 write the victim held: nginx answers UNAVAILABLE (JSON-RPC) and does not re-send the
      // POST to the survivor; nothing was written; sent again, it goes to the survivor and applies once.
      const lostWrite = await held;
      expect(lostWrite.status).toBe(503);
      expect(lostWrite.body.error?.data).toMatchObject({ classification: 'UNAVAILABLE' });
      expect(await rowsFor(lostWrite.movieId)).toBe(0);
      const again = await write2026(lostWrite.movieId);
      expect(again.status).toBe(200);
      expect(again.body.result?.isError).toBe(false);
      expect(await rowsFor(lostWrite.movieId)).toBe(1);
      console.log(
        `[cluster] SIGKILL: the 2026 write held there answered ${lostWrite.status} UNAVAILABLE, was not re-sent (0 rows), its retry applied once (1 row)`,
      );

      let lost = 0;
      for (const client of clients) {
        try {
          const next = await callTool(client, 'getMovie', { id: '2' });
          if (next.isError) lost += 1;
        } catch {
          lost += 1;
        }
      }
      console.log(`[cluster] SIGKILL: sessions lost ${lost} of ${clients.length}`);
      expect(lost).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    }
  }, 90_000);
}
