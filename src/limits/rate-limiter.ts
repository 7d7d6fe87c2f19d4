/**
 * Our own small rate-limiter interface over rate-limiter-flexible. Callers see only this interface, so the
 * in-memory store can be replaced by a shared one (Redis) when replicas must share counters: swapping is a
 * constructor change, e.g. `fromRateLimiterFlexible(new RateLimiterRedis({ storeClient, points, duration }))`.
 */
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  /** When the window that refused (or counted) this call ends; 0 when there is nothing to wait for. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts `points` against `key` and says whether it stayed within the limit (a refusal still counts). */
  consume(key: string, points?: number): Promise<RateLimitDecision>;
  /** Gives back points consumed in the current window; does nothing once that window has ended. */
  reward(key: string, points?: number): Promise<void>;
  /** Forgets the key's counter (e.g. an account's login failures once its owner signs in). */
  delete(key: string): Promise<void>;
}

export interface RateLimiterOptions {
  /** Largest number of points a key may consume per window. */
  points: number;
  /** Length of the fixed window, in seconds, starting at a key's first consumption. */
  windowSeconds: number;
  /** Keeps the keys of different limits apart in a shared store. */
  keyPrefix: string;
}

/**
 * Adapts any rate-limiter-flexible limiter (memory, Redis, PostgreSQL, ...) to RateLimiter. A refusal is
 * a RateLimiterRes rejection; any other rejection (a store failure) propagates to the caller.
 */
export function fromRateLimiterFlexible(limiter: RateLimiterAbstract): RateLimiter {
  return {
    async consume(key, points = 1) {
      try {
        const res = await limiter.consume(key, points);
        return { allowed: true, retryAfterMs: Math.max(0, res.msBeforeNext) };
      } catch (error) {
        if (error instanceof RateLimiterRes)
          return { allowed: false, retryAfterMs: Math.max(0, error.msBeforeNext) };
        throw error;
      }
    },
    async reward(key, points = 1) {
      // The library's reward on an expired window would open a new one below zero: an extra point.
      const current = await limiter.get(key);
      if (!current || current.msBeforeNext <= 0 || current.consumedPoints <= 0) return;
      await limiter.reward(key, Math.min(points, current.consumedPoints));
    },
    async delete(key) {
      await limiter.delete(key);
    },
  };
}

/** One process's counters, kept in memory (each key expires with its window). */
export function createMemoryRateLimiter(options: RateLimiterOptions): RateLimiter {
  return fromRateLimiterFlexible(
    new RateLimiterMemory({
      points: options.points,
      duration: options.windowSeconds,
      keyPrefix: options.keyPrefix,
    }),
  );
}

/** Builds a limiter for one rule; the memory one by default, a shared store's when replicas run. */
export type RateLimiterFactory = (options: RateLimiterOptions) => RateLimiter;
