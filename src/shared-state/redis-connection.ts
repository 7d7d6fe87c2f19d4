/**
 * The Redis connection shared state uses (REDIS_URL). It is configured so that Redis can never hold a
 * request: connecting is bounded, commands never queue while disconnected (they fail at once, so the
 * caller falls back), a command on a stalled connection fails after a short timeout, and reconnection
 * goes on in the background for as long as the process runs.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** Past this, a Redis command counts as failed and the in-process fallback answers instead. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 1000;
/** Reconnection backs off to this and stays there while Redis is away. */
const MAX_RECONNECT_DELAY_MS = 2000;

export interface RedisConnection {
  client: Redis;
  /** `ok` when a PING answers within the command timeout, `down` otherwise (never throws, never hangs). */
  health(): Promise<'ok' | 'down'>;
  close(): Promise<void>;
}

export function createRedisConnection(url: string, logger: Logger): RedisConnection {
  const client = new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
  });
  // Logged on transitions only: a Redis that stays away would otherwise log every reconnection attempt.
  let up = false;
  client.on('ready', () => {
    up = true;
    logger.info('redis connected');
  });
  client.on('error', (error: Error) => {
    if (up) logger.warn({ err: error }, 'redis unreachable: counting in process until it returns');
    up = false;
  });
  client.on('close', () => {
    if (up) logger.warn('redis connection closed: counting in process until it returns');
    up = false;
  });
  return {
    client,
    async health() {
      if (client.status !== 'ready') return 'down';
      try {
        await client.ping();
        return 'ok';
      } catch {
        return 'down';
      }
    },
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
