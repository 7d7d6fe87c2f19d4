/**
 * The machine's Redis for tests (TEST_REDIS_URL, else 127.0.0.1:6379), isolated by key prefix. A test
 * file asks `redisAvailable()` once: naming a Redis (TEST_REDIS_URL) or running in CI makes a missing
 * one a failure; otherwise the Redis cases are skipped.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisAvailable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  let answers = false;
  try {
    await probe.connect();
    answers = (await probe.ping()) === 'PONG';
  } catch {
    answers = false;
  } finally {
    probe.disconnect();
  }
  if (!answers && (process.env.CI === 'true' || process.env.TEST_REDIS_URL))
    throw new Error(`no Redis answers at ${REDIS_URL}: TEST_REDIS_URL or CI=true requires it`);
  return answers;
}

/** A key prefix unique to this run; `dropKeys` deletes everything under it. */
export function runPrefix(): string {
  return `moviedb-test-${randomBytes(6).toString('hex')}`;
}

export async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
