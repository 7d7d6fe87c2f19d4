/**
 * Each process holds one Redis subscriber connection, whatever shares it (session close notices,
 * cancellations, answers, result-cache invalidations), and one command connection, through the front
 * door: two replicas on one Redis namespace, their connections counted with CLIENT LIST by the names
 * they carry (`<REDIS_KEY_PREFIX>:<replica>:<role>`). A subscriber that Redis drops comes back alone and
 * listens again: a write on one replica still clears the other's result cache.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSession } from '../helpers/mcp.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { untilRedis } from '../helpers/shared-redis-env.js';

const available = await redisAvailable();
if (!available) console.warn(`redis-connections tests skipped: no Redis answers at ${REDIS_URL}`);
const RUN = runPrefix();
afterAll(() => available && dropKeys(RUN));

interface Client {
  id: string;
  replica: string;
  role: string;
}

/** The clients of `namespace`, from CLIENT LIST. */
async function clientsOf(redis: Redis, namespace: string): Promise<Client[]> {
  const list = (await redis.call('CLIENT', 'LIST')) as string;
  return list
    .split('\n')
    .map((line) =>
      Object.fromEntries(line.split(' ').map((field) => field.split('=', 2) as [string, string])),
    )
    .filter((fields) => fields.name?.startsWith(`${namespace}:`))
    .map((fields) => {
      const [replica, role] = fields.name!.slice(namespace.length + 1).split(':') as [string, string];
      return { id: fields.id!, replica, role };
    });
}

/** Per replica, how many connections of each role it holds. */
function countByReplica(clients: Client[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const { replica, role } of clients) {
    counts[replica] ??= {};
    counts[replica][role] = (counts[replica][role] ?? 0) + 1;
  }
  return counts;
}

/** A write that clears every replica's result cache (a review changes shared answers). */
const REVIEW =
  'mutation ($movieId: ID!) { createReview(input: { subject: { movieId: $movieId }, score: 7 }) { id } }';

describe.skipIf(!available)('Redis connections per replica', () => {
  const servers: TestServer[] = [];
  const redis = available ? new Redis(REDIS_URL) : undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  afterAll(() => redis?.disconnect());

  it('each replica holds one subscriber and one command connection, and its one subscriber comes back after Redis drops it', async () => {
    const namespace = `${RUN}-pair`;
    const env = { REDIS_URL, REDIS_KEY_PREFIX: namespace };
    const [a, b] = await Promise.all([
      startTestServer('sqlite', { env }),
      startTestServer('sqlite', { env }),
    ]);
    servers.push(a, b);
    // A replica listens before its Redis connection is up (sessions answer 503 until then).
    await Promise.all([untilRedis(a, 'ok'), untilRedis(b, 'ok')]);
    // Every user of the bus at work: sessions (close notices, cancellations, answers), the result cache.
    await openSession(a.url);
    await openSession(b.url);
    const { token } = await a.newUser();
    await a.graphql(REVIEW, { movieId: '4' }, token);

    const expected = { cmd: 1, sub: 1 };
    await expect
      .poll(async () => Object.values(countByReplica(await clientsOf(redis!, namespace))))
      .toEqual([expected, expected]);

    // Redis drops one replica's subscriber: it reconnects by itself, still one, and listens again.
    const dropped = (await clientsOf(redis!, namespace)).find((client) => client.role === 'sub')!;
    await redis!.call('CLIENT', 'KILL', 'ID', dropped.id);
    const subscriberOf = async (replica: string) =>
      (await clientsOf(redis!, namespace)).find(
        (client) => client.role === 'sub' && client.replica === replica,
      );
    await expect
      .poll(async () => (await subscriberOf(dropped.replica))?.id, { timeout: 10_000 })
      .not.toBe(dropped.id);
    await expect.poll(async () => (await subscriberOf(dropped.replica))?.id).toBeDefined();
    expect(Object.values(countByReplica(await clientsOf(redis!, namespace)))).toEqual([expected, expected]);

    // Each replica is told of the other's write, the one whose subscriber was dropped included.
    const remote = async (server: TestServer) => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/moviedb_result_cache_invalidations_total\{origin="remote"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = [await remote(a), await remote(b)];
    await a.graphql(REVIEW, { movieId: '5' }, token);
    const other = await b.newUser();
    await b.graphql(REVIEW, { movieId: '5' }, other.token);
    await expect
      .poll(async () => (await remote(a)) > before[0]! && (await remote(b)) > before[1]!, { timeout: 5000 })
      .toBe(true);
  });
});
