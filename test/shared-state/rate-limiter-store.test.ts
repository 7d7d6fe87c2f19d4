/**
 * The rate limiter's contract (src/limits/rate-limiter.ts), the same cases on the in-process counters
 * and on Redis (src/shared-state/redis-rate-limiter-factory.ts): a window of points per key, a refusal
 * that says when to come back, points given back within the window only, and a forgotten key.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, type RateLimiterFactory } from '../../src/limits/rate-limiter.js';
import { createRedisRateLimiterFactory } from '../../src/shared-state/redis-rate-limiter-factory.js';
import { implementations } from '../helpers/shared-state.js';

const factories = implementations<{ create: RateLimiterFactory }>(
  () => ({ create: createMemoryRateLimiter }),
  (redis) => ({ create: createRedisRateLimiterFactory(redis.client, redis.namespace) }),
);

describe.each(factories)('a rate limiter (%s)', (_name, open) => {
  it('admits `points` per window, then refuses with the time left in the window; a refusal still counts', async () => {
    const { value, close } = await open();
    try {
      const limiter = value.create({ points: 3, windowSeconds: 60, keyPrefix: 'contract' });
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true });
      expect(await limiter.consume('k')).toMatchObject({ allowed: true });
      const refused = await limiter.consume('k');
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBeGreaterThan(50_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
      // Another key, and the same key under another limit, count apart.
      expect(await limiter.consume('other', 3)).toMatchObject({ allowed: true });
      const sibling = value.create({ points: 1, windowSeconds: 60, keyPrefix: 'contract-2' });
      expect(await sibling.consume('k')).toMatchObject({ allowed: true });
    } finally {
      await close();
    }
  });

  it('reward gives points back within the window and never below zero; delete forgets the key', async () => {
    const { value, close } = await open();
    try {
      const limiter = value.create({ points: 2, windowSeconds: 60, keyPrefix: 'contract' });
      // Nothing consumed yet: a reward must not buy an extra point.
      await limiter.reward('k', 5);
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true });
      expect(await limiter.consume('k')).toMatchObject({ allowed: false });
      await limiter.reward('k', 2);
      expect(await limiter.consume('k')).toMatchObject({ allowed: true });
      expect(await limiter.consume('k')).toMatchObject({ allowed: false });
      await limiter.delete('k');
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true });
    } finally {
      await close();
    }
  });
});
