/**
 * Rate limiters whose counters live in Redis, so every replica sharing REDIS_URL (and REDIS_KEY_PREFIX)
 * counts against the same limit. While Redis is unreachable each limiter falls back to an in-memory one
 * (rate-limiter-flexible's insuranceLimiter): limits still hold, per process, and no request waits for
 * Redis; once Redis answers again the shared counters are used again. Counts taken during the outage
 * stay in the process and are not merged into Redis.
 */
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { fromRateLimiterFlexible, type RateLimiterFactory } from '../limits/rate-limiter.js';

/** Keys are `<namespace>:rate:<limit>:<key>`, so several deployments can share one Redis. */
export function createRedisRateLimiterFactory(client: Redis, namespace: string): RateLimiterFactory {
  return (options) =>
    fromRateLimiterFlexible(
      new RateLimiterRedis({
        storeClient: client,
        points: options.points,
        duration: options.windowSeconds,
        keyPrefix: `${namespace}:rate:${options.keyPrefix}`,
        // Not connected: go to the fallback at once instead of failing a command first.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({
          points: options.points,
          duration: options.windowSeconds,
          keyPrefix: options.keyPrefix,
        }),
      }),
    );
}
