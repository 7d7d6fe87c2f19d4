/**
 * Any replica serves any request (docs/deployment.md, Several replicas), proven through the load balancer of `npm run cluster`:
 * two replicas (separate processes) behind nginx with round robin and no affinity, on PostgreSQL and
 * Redis. A 2025 session is served by both replicas in turn; a 2026-07-28 client too; a 2025 call whose
 * response stream is cut resumes with Last-Event-ID on the other replica (one with progress, through the
 * SDK, and a plain one, on the lean path); a replica killed with SIGKILL
 * while it runs calls loses no session and leaves no call hanging, and nginx does not re-send the write it
 * held to the survivor (a POST that reached a replica is never retried); a 2025 client asked by
 * elicitation is answered across replicas; a rate limit holds across both; and
 * 1,000 concurrent writes spread over both leave exactly 1,000 rows. Figures are printed as they are
 * measured. Needs nginx, TEST_DATABASE_URL and TEST_REDIS_URL; without them the tests are skipped with a
 * message, unless REQUIRE_CLUSTER=1 (CI sets it), where that fails.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterPrerequisites, startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { connectModernClient, modernRequest } from '../helpers/mcp-modern.js';
import { classificationOf } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const missing = await clusterPrerequisites();
const required = process.env.REQUIRE_CLUSTER === '1';
if (missing.length > 0) {
  console.warn(
    `cluster tests skipped: ${missing.join('; ')}.` +
      (required ? ' REQUIRE_CLUSTER=1 makes that a failure.' : ''),
  );
}

describe('what the cluster test needs', () => {
  it.runIf(required)('nginx, TEST_DATABASE_URL and a Redis at TEST_REDIS_URL (REQUIRE_CLUSTER=1)', () => {
    expect(missing).toEqual([]);
  });
});

/** Operations one signed-in user may run per window in this cluster: small, so the shared count shows. */
const USER_LIMIT = 50;
/** A call that takes longer than this to settle counts as hung. */
const HANG_BOUND_MS = 30_000;
/** The PostgreSQL statement summarizeMovieReviews sends after reporting its first progress. */
const REVIEWS_QUERY = /from "reviews"/;
const SUMMARY = { name: 'summarizeMovieReviews', arguments: { movieId: '1' } };
/** Reconnect soon after a cut stream (the SDK's default waits a second, then longer). */
const QUICK_RECONNECT = {
  initialReconnectionDelay: 100,
  maxReconnectionDelay: 1000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 5,
};

interface SentRequest {
  requestId: string;
  method: string;
  lastEventId: string | null;
}

/** A fetch that tags every request with an X-Request-Id and records it, to find it in the access log. */
function recordingFetch(sent: SentRequest[]): FetchLike {
  let n = 0;
  return (url, init) => {
    const headers = new Headers(init?.headers);
    const requestId = `cluster-test-${process.pid}-${++n}`;
    headers.set('x-request-id', requestId);
    sent.push({ requestId, method: init?.method ?? 'GET', lastEventId: headers.get('last-event-id') });
    return fetch(url, { ...init, headers });
  };
}

describe.skipIf(missing.length > 0)('two replicas behind nginx (round robin, no affinity)', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startTestCluster({
      RATE_LIMIT_USER_OPERATIONS: String(USER_LIMIT),
      // 1,000 writes queue for two pools of 10 connections on a shared 2-core machine.
      GRAPHQL_TIMEOUT_MS: '30000',
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  /** Requests each replica has answered on `route`, from its own /metrics. */
  const answered = (route: string) =>
    Promise.all(
      cluster.replicas.map((replica) =>
        cluster.metric(replica, 'moviedb_http_request_duration_seconds_count', { route }),
      ),
    );
  const since = (before: number[], after: number[]) => after.map((n, i) => n - before[i]!);
  /** The replica whose access log has this request id. */
  const servedBy = (requestId: string) =>
    cluster.accessLog().find((line) => line.requestId === requestId)?.replica;

  /** A 2025 client behind a proxy of ours, between it and the load balancer, that can cut a call's stream. */
  const connectBehindCutter = async (token: string) => {
    const front = await startTcpProxy('127.0.0.1', Number(new URL(cluster.url).port));
    const sent: SentRequest[] = [];
    const client = await connectClient(`http://127.0.0.1:${front.port}`, token, {
      fetch: recordingFetch(sent),
      reconnectionOptions: QUICK_RECONNECT,
    });
    return { front, sent, client };
  };

  it('a 2025 session (v1 SDK client) is served by both replicas in turn, every request answered', async () => {
    const { token } = await cluster.newUser();
    const before = await answered('/mcp');
    const client = await connectClient(cluster.url, token);
    try {
      for (let id = 1; id <= 10; id += 1) {
        const result = await callTool<{ id: string }>(client, 'getMovie', { id: String(id) });
        expect(result.isError).toBe(false);
        expect(result.structuredContent.data.id).toBe(String(id));
      }
      expect((await client.listTools()).tools).toHaveLength(9);
      const added = await callTool(client, 'addToWatchlist', { subject: { movieId: '12' } });
      expect(added.isError).toBe(false);
      const list = await callTool<unknown[]>(client, 'myWatchlist');
      expect(list.structuredContent.data).toHaveLength(1);
    } finally {
      await client.close();
    }
    // Counted when each response has finished; the last one may still be closing.
    await expect
      .poll(async () => since(before, await answered('/mcp')).reduce((a, b) => a + b))
      .toBeGreaterThanOrEqual(15);
    const perReplica = since(before, await answered('/mcp'));
    console.log(`[cluster] 2025 session: /mcp requests answered per replica: ${perReplica.join(' / ')}`);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(5);
  });

  it('a 2026-07-28 client (v2 SDK, pinned) is served by both replicas: calls, a write, progress over SSE', async () => {
    const { token } = await cluster.newUser();
    const before = await answered('/mcp');
    const client = await connectModernClient(cluster.url, { authorization: `Bearer ${token}` });
    try {
      for (let id = 1; id <= 10; id += 1) {
        const result = (await client.callTool({ name: 'getMovie', arguments: { id: String(id) } })) as {
          isError?: boolean;
          structuredContent: Envelope<{ id: string }>;
        };
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.data.id).toBe(String(id));
      }
      expect((await client.listTools()).tools).toHaveLength(9);
      const added = await client.callTool({
        name: 'addToWatchlist',
        arguments: { subject: { movieId: '13' } },
      });
      expect(added.isError).toBeFalsy();
      // Progress turns the answer into an SSE stream: unbuffered through nginx, each event arrives.
      const progress: string[] = [];
      const summary = (await client.callTool(SUMMARY, {
        onprogress: (p) => progress.push(p.message ?? ''),
      })) as { structuredContent: Envelope<{ reviewCount: number }> };
      expect(summary.structuredContent.data.reviewCount).toBe(8);
      expect(progress).toEqual(['Loading reviews', 'Summarising reviews', 'Done']);
    } finally {
      await client.close();
    }
    await expect
      .poll(async () => since(before, await answered('/mcp')).reduce((a, b) => a + b))
      .toBeGreaterThanOrEqual(13);
    const perReplica = since(before, await answered('/mcp'));
    console.log(`[cluster] 2026-07-28 client: /mcp requests answered per replica: ${perReplica.join(' / ')}`);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(4);
  });

  it(`a per-user limit of ${USER_LIMIT} operations holds across both replicas: reached at ${USER_LIMIT}, not twice it`, async () => {
    const { token } = await cluster.newUser();
    const before = await answered('/graphql');
    const outcomes: string[] = [];
    for (let i = 0; i < USER_LIMIT + 10; i += 1) {
      const response = await cluster.graphql('{ me { username } }', {}, token);
      outcomes.push(
        response.status === 200 ? 'ok' : `${response.status} ${String(classificationOf(response))}`,
      );
    }
    const perReplica = since(before, await answered('/graphql'));
    const served = outcomes.filter((o) => o === 'ok').length;
    console.log(
      `[cluster] rate limit ${USER_LIMIT}/user: ${served} of ${outcomes.length} served, /graphql requests per replica ${perReplica.join(' / ')}`,
    );
    expect(outcomes).toEqual([
      ...Array<string>(USER_LIMIT).fill('ok'),
      ...Array<string>(10).fill('429 RATE_LIMITED'),
    ]);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(USER_LIMIT / 3);
  });

  it('1,000 concurrent writes spread over both replicas leave exactly 1,000 rows in PostgreSQL', async () => {
    const users = await Promise.all(Array.from({ length: 25 }, () => cluster.newUser()));
    const before = await answered('/graphql');
    const started = Date.now();
    const add = 'mutation ($id: ID!) { addToWatchlist(subject: {movieId: $id}) { id status } }';
    const responses = await Promise.all(
      users.flatMap(({ token }) =>
        Array.from({ length: 40 }, (_, i) => cluster.graphql(add, { id: String(i + 1) }, token)),
      ),
    );
    const elapsedMs = Date.now() - started;
    const failures = responses.filter((r) => r.status !== 200 || r.body.errors);
    expect(failures.map((r) => r.body)).toEqual([]);
    const [rows] = await cluster.query<{ n: string; pairs: string }>(
      `select count(*) as n, count(distinct (w.user_id, w.movie_id)) as pairs
         from watchlist_items w join users u on u.id = w.user_id where u.username = any($1)`,
      [users.map((u) => u.username)],
    );
    const perReplica = since(before, await answered('/graphql'));
    console.log(
      `[cluster] 1,000 concurrent writes in ${elapsedMs} ms: rows ${rows!.n}, /graphql requests per replica ${perReplica.join(' / ')}`,
    );
    expect(rows).toEqual({ n: '1000', pairs: '1000' });
    expect(perReplica.reduce((a, b) => a + b)).toBe(1000);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(300);
  }, 90_000);

  it('a 2025 call whose response stream is cut mid-call resumes with Last-Event-ID on the other replica, and gets the rest and the result', async () => {
    const { token } = await cluster.newUser();
    const { front, sent, client } = await connectBehindCutter(token);
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
      const resumer = servedBy(resumed[0]!.requestId);
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

  it('a 2025 client asked by elicitation: its answer, POSTed to whichever replica, reaches the call on the other, and each entry is removed', async () => {
    const { token } = await cluster.newUser();
    const tagged: Array<{ requestId: string; kind: 'call' | 'answer' }> = [];
    let n = 0;
    const tagging: FetchLike = (url, init) => {
      const headers = new Headers(init?.headers);
      const requestId = `cluster-elicit-${process.pid}-${++n}`;
      headers.set('x-request-id', requestId);
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"removeFromWatchlist"')) tagged.push({ requestId, kind: 'call' });
      else if (body.includes('"result"')) tagged.push({ requestId, kind: 'answer' });
      return fetch(url, { ...init, headers });
    };
    const client = new Client(
      { name: 'cluster-elicits', version: '1' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${cluster.url}/mcp`), {
        fetch: tagging,
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      for (const movieId of ['21', '22', '23']) {
        const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId } });
        const removed = await callTool(client, 'removeFromWatchlist', {
          itemId: added.structuredContent.data.id,
        });
        expect(removed.structuredContent).toEqual({ data: true, errors: [] });
      }
      expect((await callTool<unknown[]>(client, 'myWatchlist')).structuredContent.data).toEqual([]);
    } finally {
      await client.close();
    }
    const pairs = tagged.flatMap((request, i) =>
      request.kind === 'call' && tagged[i + 1]?.kind === 'answer'
        ? [[servedBy(request.requestId), servedBy(tagged[i + 1]!.requestId)]]
        : [],
    );
    console.log(
      `[cluster] elicitation: (call, answer) replicas: ${pairs.map((p) => p.join('→')).join(', ')}`,
    );
    expect(pairs).toHaveLength(3);
    expect(
      pairs.some(([call, answer]) => call !== undefined && answer !== undefined && call !== answer),
    ).toBe(true);
  });

  it('a plain 2025 call (the lean path: no progress) whose response stream is cut mid-call resumes with Last-Event-ID on the other replica and gets its result', async () => {
    const { token } = await cluster.newUser();
    const { front, sent, client } = await connectBehindCutter(token);
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
      // The priming event went out before the query; let it reach the client through nginx.
      await new Promise((resolve) => setTimeout(resolve, 300));
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
      const resumer = servedBy(resumed[0]!.requestId);
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
});
