/**
 * The implementations of each shared-state interface, for contract tests that run the same cases on
 * each: the in-process one always, the Redis one when a Redis answers at REDIS_URL (see redis.ts). Each
 * Redis implementation gets a connection of its own (the real one, createRedisConnection) and a
 * namespace of its own, whose keys are deleted when it closes.
 */
import { createLogger } from '../../src/logger.js';
import type { RedisConnection } from '../../src/shared-state/redis-connection.js';
import { createRedisConnection } from '../../src/shared-state/redis-connection.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from './redis.js';

interface Implementation<T> {
  value: T;
  close(): Promise<void>;
}

/** `[name, create]` pairs for describe.each: memory always, redis when one answers. */
export type Implementations<T> = [string, () => Promise<Implementation<T>>][];

const available = await redisAvailable();
if (!available)
  console.warn(`shared-state contract tests: the Redis cases skipped, no Redis at ${REDIS_URL}`);

/** A real connection under a fresh namespace; closing it deletes the namespace's keys. */
async function openRedis(url = REDIS_URL): Promise<{ redis: RedisConnection; close(): Promise<void> }> {
  const namespace = runPrefix();
  const redis = createRedisConnection({ url, namespace, logger: createLogger('silent') });
  await new Promise<void>((resolve, reject) => {
    redis.client.once('ready', resolve);
    redis.client.once('error', reject);
  });
  return {
    redis,
    async close() {
      await redis.close();
      await dropKeys(namespace);
    },
  };
}

export function implementations<T>(
  memory: () => T & { close?(): Promise<void> },
  redis: (connection: RedisConnection) => T & { close?(): Promise<void> },
): Implementations<T> {
  const list: Implementations<T> = [
    [
      'memory',
      async () => {
        const value = memory();
        return { value, close: async () => value.close?.() };
      },
    ],
  ];
  if (available)
    list.push([
      'redis',
      async () => {
        const connection = await openRedis();
        const value = redis(connection.redis);
        return {
          value,
          async close() {
            await value.close?.();
            await connection.close();
          },
        };
      },
    ]);
  return list;
}
