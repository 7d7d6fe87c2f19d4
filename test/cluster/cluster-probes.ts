/**
 * What the cluster tests share: the prerequisites check (a failure under REQUIRE_CLUSTER=1), the
 * cluster's settings, and how a test learns which replica served what (their /metrics, nginx's access
 * log through an X-Request-Id of the test's own).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { clusterPrerequisites, type TestCluster } from '../helpers/cluster.js';
import { connectClient } from '../helpers/mcp.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

/**
 * What this machine lacks for the cluster tests (empty: they run), a failing test under REQUIRE_CLUSTER=1.
 * Each cluster test file calls it once, at its top.
 */
export async function requireClusterPrerequisites(): Promise<string[]> {
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
  return missing;
}

/** Operations one signed-in user may run per window in this cluster: small, so the shared count shows. */
export const USER_LIMIT = 50;
/** A call that takes longer than this to settle counts as hung. */
export const HANG_BOUND_MS = 30_000;
/** The PostgreSQL statement summarizeMovieReviews sends after reporting its first progress. */
export const REVIEWS_QUERY = /from "reviews"/;
export const SUMMARY = { name: 'summarizeMovieReviews', arguments: { movieId: '1' } };
/** Reconnect soon after a cut stream (the SDK's default waits a second, then longer). */
export const QUICK_RECONNECT = {
  initialReconnectionDelay: 100,
  maxReconnectionDelay: 1000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 5,
};

/** Both replicas' settings on top of the test defaults. */
export const CLUSTER_ENV: Env = {
  RATE_LIMIT_USER_OPERATIONS: String(USER_LIMIT),
  // 1,000 writes queue for two pools of 10 connections on a shared 2-core machine.
  GRAPHQL_TIMEOUT_MS: '30000',
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

/** Requests each replica has answered on `route`, from its own /metrics. */
export const answered = (cluster: TestCluster, route: string) =>
  Promise.all(
    cluster.replicas.map((replica) =>
      cluster.metric(replica, 'moviedb_http_request_duration_seconds_count', { route }),
    ),
  );

export const since = (before: number[], after: number[]) => after.map((n, i) => n - before[i]!);

/** The replica whose access log has this request id. */
export const servedBy = (cluster: TestCluster, requestId: string) =>
  cluster.accessLog().find((line) => line.requestId === requestId)?.replica;

/** A 2025 client behind a proxy of ours, between it and the load balancer, that can cut a call's stream. */
export const connectBehindCutter = async (cluster: TestCluster, token: string) => {
  const front = await startTcpProxy('127.0.0.1', Number(new URL(cluster.url).port));
  const sent: SentRequest[] = [];
  const client = await connectClient(`http://127.0.0.1:${front.port}`, token, {
    fetch: recordingFetch(sent),
    reconnectionOptions: QUICK_RECONNECT,
  });
  return { front, sent, client };
};
