/**
 * Rate limits shared through Redis (REDIS_URL), through the front door: two server instances using one
 * Redis enforce one count, and a write on one clears the other's result cache; with Redis unreachable each keeps answering promptly and counts on its own,
 * /readyz says so and stays 200, and shared counting resumes once Redis is back. Uses the machine's
 * Redis (TEST_REDIS_URL, else 127.0.0.1:6379) under a key prefix unique to this run, deleted afterwards;
 * skipped when no Redis answers, unless TEST_REDIS_URL is set or CI=true, where that fails.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const RUN_PREFIX = runPrefix();
const ME = '{ me { username } }';
const LOGIN = 'mutation ($input: LoginInput!) { login(input: $input) { token } }';

// Naming a Redis (TEST_REDIS_URL, as .ci/run does) or running in CI makes a missing one a failure.
const available = await redisAvailable();
if (!available) console.warn(`shared-limits tests skipped: no Redis answers at ${REDIS_URL}`);

afterAll(async () => {
  if (available) await dropKeys(`${RUN_PREFIX}-`);
});

describe.skipIf(!available).each(dialects)('rate limits shared through Redis on %s', (dialect) => {
  const servers: TestServer[] = [];
  const proxies: TcpProxy[] = [];
  let tests = 0;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  /** Two instances sharing one Redis namespace (fresh per test), as two replicas would. */
  async function twoReplicas(env: Env, redisUrl = REDIS_URL): Promise<[TestServer, TestServer]> {
    const shared = {
      RATE_LIMITS: 'on',
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `${RUN_PREFIX}-${dialect}-${++tests}`,
      ...env,
    };
    const pair = await Promise.all([
      startTestServer(dialect, { env: shared }),
      startTestServer(dialect, { env: shared }),
    ]);
    servers.push(...pair);
    // Connecting happens in the background; until it has, each instance counts in process (by design).
    await Promise.all(pair.map((server) => untilRedis(server, 'ok')));
    return pair;
  }

  async function post(server: TestServer, query: string, variables = {}, token?: string) {
    const response = await server.graphql(query, variables, token);
    return { status: response.status, classification: classificationOf(response) };
  }

  async function readiness(server: TestServer) {
    const response = await fetch(`${server.url}/readyz`);
    const body = (await response.json()) as { checks?: { database?: string; redis?: string } };
    return { status: response.status, redis: body.checks?.redis };
  }

  /** Polls /readyz until it reports Redis in the given state (reconnection backs off to 2 s). */
  const untilRedis = (server: TestServer, state: 'ok' | 'down') =>
    expect.poll(async () => (await readiness(server)).redis, { timeout: 10_000, interval: 100 }).toBe(state);

  it('two instances sharing REDIS_URL enforce one per-user operation limit: reached at the configured count, not twice it', async () => {
    const [a, b] = await twoReplicas({ RATE_LIMIT_USER_OPERATIONS: '6', RATE_LIMIT_WINDOW_SECONDS: '60' });
    // The same seed account on both (both databases are seeded alike): one subject, one counter.
    const tokens = new Map([
      [a, await a.login('user', 'user123')],
      [b, await b.login('user', 'user123')],
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const server = i % 2 === 0 ? a : b;
      statuses.push((await post(server, ME, {}, tokens.get(server))).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('a write on one instance clears the result cache of the other', async () => {
    const [a, b] = await twoReplicas({});
    const lookups = async () => {
      const text = await (await fetch(`${b.url}/metrics`)).text();
      const count = (name: string) => Number(new RegExp(`${name} (\\d+)`).exec(text)?.[1] ?? 0);
      return {
        hit: count('moviedb_result_cache_lookups_total\\{result="hit"\\}'),
        remote: count('moviedb_result_cache_invalidations_total\\{origin="remote"\\}'),
      };
    };
    const read = () => b.graphql('{ movie(id: "4") { title } }');
    await expect
      .poll(async () => (await read(), (await lookups()).hit), { timeout: 5000 })
      .toBeGreaterThan(0);
    const cached = await lookups();
    const { token } = await a.newUser();
    await a.graphql('mutation { addToWatchlist(subject: { movieId: "4" }) { id } }', {}, token);
    await expect.poll(async () => (await lookups()).remote, { timeout: 5000 }).toBeGreaterThan(cached.remote);
    await read();
    // The first read after the invalidation is executed again, not served from the cache.
    expect((await lookups()).hit).toBe(cached.hit);
  });

  it('login failures for one account are counted across both instances', async () => {
    const [a, b] = await twoReplicas({ LOGIN_FAILURES_PER_ACCOUNT: '4' });
    const name = `nobody_${randomBytes(4).toString('hex')}`;
    const answers = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(await post(i % 2 === 0 ? a : b, LOGIN, { input: { username: name, password: `x${i}` } }));
    }
    expect(answers.slice(0, 4).map((answer) => answer.classification)).not.toContain('RATE_LIMITED');
    expect(answers.slice(4)).toEqual([
      { status: 429, classification: 'RATE_LIMITED' },
      { status: 429, classification: 'RATE_LIMITED' },
    ]);
  });

  it('with Redis unreachable, requests are answered promptly, limits hold per instance, /readyz says redis down and stays 200; shared counting resumes when Redis returns', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    proxies.push(proxy);
    const [a, b] = await twoReplicas(
      { RATE_LIMIT_USER_OPERATIONS: '4', RATE_LIMIT_WINDOW_SECONDS: '60' },
      `redis://127.0.0.1:${proxy.port}`,
    );
    const tokenA = await a.login('user', 'user123');
    const tokenB = await b.login('user', 'user123');

    proxy.down();
    await Promise.all([untilRedis(a, 'down'), untilRedis(b, 'down')]);
    expect(await readiness(a)).toEqual({ status: 200, redis: 'down' });
    // Each instance counts on its own: 4 each, then refused; every answer comes back well within 3 s
    // (a generous bound on a loaded machine: a Redis command would otherwise wait for reconnection).
    for (const [server, token] of [
      [a, tokenA],
      [b, tokenB],
    ] as const) {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        statuses.push((await post(server, ME, {}, token)).status);
        expect(performance.now() - started).toBeLessThan(3000);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    }

    proxy.up();
    await Promise.all([untilRedis(a, 'ok'), untilRedis(b, 'ok')]);
    // Redis never saw the outage's counts: the shared counter starts afresh and holds across both again.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await post(i % 2 === 0 ? a : b, ME, {}, i % 2 === 0 ? tokenA : tokenB)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('with Redis stalled (connected, answering nothing), requests still answer within 3 s and count in process; readiness stays 200 with redis down', async () => {
    const target = new URL(REDIS_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    proxies.push(proxy);
    const [a] = await twoReplicas(
      { RATE_LIMIT_USER_OPERATIONS: '3', RATE_LIMIT_WINDOW_SECONDS: '60' },
      `redis://127.0.0.1:${proxy.port}`,
    );
    const token = await a.login('user', 'user123');

    proxy.stall();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const started = performance.now();
      statuses.push((await post(a, ME, {}, token)).status);
      expect(performance.now() - started).toBeLessThan(3000);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await readiness(a)).toEqual({ status: 200, redis: 'down' });

    proxy.resume();
    await untilRedis(a, 'ok');
  });

  it('an instance whose REDIS_URL names a closed port starts, serves and reports redis down on a 200 /readyz', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const server = await startTestServer(dialect, {
      env: {
        RATE_LIMITS: 'on',
        RATE_LIMIT_USER_OPERATIONS: '2',
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_KEY_PREFIX: `${RUN_PREFIX}-${dialect}-${++tests}`,
      },
    });
    servers.push(server);
    const token = await server.login('user', 'user123');
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await post(server, ME, {}, token)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await readiness(server)).toEqual({ status: 200, redis: 'down' });
  });
});
