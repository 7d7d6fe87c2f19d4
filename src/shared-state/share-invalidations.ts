/**
 * Passes result-cache invalidations between replicas through Redis pub/sub (REDIS_URL): a write here is
 * published on one channel of this deployment's namespace, and a write announced by another replica
 * clears the cache here. Subscribing needs a connection of its own (a subscribed Redis connection can
 * send nothing else). While that connection is down, other replicas' writes are missed: the cache is
 * cleared again whenever it (re)subscribes, and entries expire anyway (RESULT_CACHE_TTL_SECONDS), so a
 * Redis outage bounds staleness and never blocks a request (publishing is fire and forget).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { ResultCache } from '../graphql/result-cache.js';
import type { RedisConnection } from './redis-connection.js';

export interface SharedInvalidation {
  close(): Promise<void>;
}

export function shareInvalidations(
  cache: Pick<ResultCache, 'invalidate' | 'onInvalidate'>,
  redis: Pick<RedisConnection, 'client'>,
  options: { keyPrefix: string; logger: Logger; onRemote?: () => void },
): SharedInvalidation {
  const channel = `${options.keyPrefix}:result-cache:invalidate`;
  // Our own announcements come back to us: the instance id tells them apart.
  const instance = randomUUID();
  const subscriber = redis.client.duplicate();
  subscriber.on('error', () => undefined); // the main connection reports Redis going away and back
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      // Writes announced while we were not listening are lost: start afresh.
      () => cache.invalidate(false),
      (error: unknown) =>
        options.logger.warn({ err: error }, 'result cache: could not subscribe to invalidations'),
    );
  });
  subscriber.on('message', (_channel: string, from: string) => {
    if (from === instance) return;
    cache.invalidate(false);
    options.onRemote?.();
  });
  cache.onInvalidate(() => {
    redis.client.publish(channel, instance).catch((error: unknown) => {
      options.logger.debug({ err: error }, 'result cache: invalidation not announced (Redis unreachable)');
    });
  });
  return {
    async close() {
      try {
        await subscriber.quit();
      } catch {
        subscriber.disconnect();
      }
    },
  };
}
