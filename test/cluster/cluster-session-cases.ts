/**
 * Any replica serves any request (docs/deployment.md, Several replicas), proven through the load balancer of
 * `npm run cluster`: two replicas (separate processes) behind nginx with round robin and no affinity, on
 * PostgreSQL and Redis. A 2025 session is served by both replicas in turn; a 2026-07-28 client too; a 2025
 * client asked by elicitation is answered across replicas; a rate limit holds across both; and 1,000
 * concurrent writes spread over both leave exactly 1,000 rows. Streams cut and a replica killed:
 * cluster-resumption-cases.ts. Figures are printed as they are measured.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import type { TestCluster } from '../helpers/cluster.js';
import { callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { classificationOf } from '../helpers/server.js';
import { answered, servedBy, since, SUMMARY, USER_LIMIT } from './cluster-probes.js';

/** The cases of cluster.infra.test.ts that need the cluster whole; `current` is the running cluster. */
export function clusterSessionCases(current: () => TestCluster): void {
  let cluster: TestCluster;
  beforeAll(() => {
    cluster = current();
  });

  it('a 2025 session (v1 SDK client) is served by both replicas in turn, every request answered', async () => {
    const { token } = await cluster.newUser();
    const before = await answered(cluster, '/mcp');
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
      .poll(async () => since(before, await answered(cluster, '/mcp')).reduce((a, b) => a + b))
      .toBeGreaterThanOrEqual(15);
    const perReplica = since(before, await answered(cluster, '/mcp'));
    console.log(`[cluster] 2025 session: /mcp requests answered per replica: ${perReplica.join(' / ')}`);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(5);
  });

  it('a 2026-07-28 client (v2 SDK, pinned) is served by both replicas: calls, a write, progress over SSE', async () => {
    const { token } = await cluster.newUser();
    const before = await answered(cluster, '/mcp');
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
      .poll(async () => since(before, await answered(cluster, '/mcp')).reduce((a, b) => a + b))
      .toBeGreaterThanOrEqual(13);
    const perReplica = since(before, await answered(cluster, '/mcp'));
    console.log(`[cluster] 2026-07-28 client: /mcp requests answered per replica: ${perReplica.join(' / ')}`);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(4);
  });

  it(`a per-user limit of ${USER_LIMIT} operations holds across both replicas: reached at ${USER_LIMIT}, not twice it`, async () => {
    const { token } = await cluster.newUser();
    const before = await answered(cluster, '/graphql');
    const outcomes: string[] = [];
    for (let i = 0; i < USER_LIMIT + 10; i += 1) {
      const response = await cluster.graphql('{ me { username } }', {}, token);
      outcomes.push(
        response.status === 200 ? 'ok' : `${response.status} ${String(classificationOf(response))}`,
      );
    }
    const perReplica = since(before, await answered(cluster, '/graphql'));
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
    const before = await answered(cluster, '/graphql');
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
    const perReplica = since(before, await answered(cluster, '/graphql'));
    console.log(
      `[cluster] 1,000 concurrent writes in ${elapsedMs} ms: rows ${rows!.n}, /graphql requests per replica ${perReplica.join(' / ')}`,
    );
    expect(rows).toEqual({ n: '1000', pairs: '1000' });
    expect(perReplica.reduce((a, b) => a + b)).toBe(1000);
    for (const n of perReplica) expect(n).toBeGreaterThanOrEqual(300);
  }, 90_000);

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
        ? [[servedBy(cluster, request.requestId), servedBy(cluster, tagged[i + 1]!.requestId)]]
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
}
