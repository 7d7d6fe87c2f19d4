/**
 * Messages between replicas (Redis pub/sub): a cancellation for a call running elsewhere, a session
 * ended elsewhere. Subscribing needs a connection of its own (a subscribed connection runs no other
 * command); it queues its subscriptions until connected and renews them after every reconnection, so a
 * Redis that comes back is listened to again without anyone asking. Publishing goes through the shared
 * connection and fails fast when Redis is away: every message is best effort.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

export interface RedisBus {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
  close(): Promise<void>;
}

export function createRedisBus(client: Redis, logger: Logger): RedisBus {
  const subscriber = client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    // A subscribed connection only listens: no command of it is waited for.
    commandTimeout: undefined,
  });
  subscriber.on('error', () => undefined);
  const handlers = new Map<string, (message: string) => void>();
  subscriber.on('message', (channel: string, message: string) => {
    try {
      handlers.get(channel)?.(message);
    } catch (error) {
      logger.warn({ err: error, channel }, 'a shared-state message could not be handled');
    }
  });
  return {
    async publish(channel, message) {
      try {
        await client.publish(channel, message);
      } catch (error) {
        logger.debug({ err: error, channel }, 'a shared-state message could not be published');
      }
    },
    subscribe(channel, handler) {
      handlers.set(channel, handler);
      subscriber.subscribe(channel).catch(() => undefined);
    },
    async close() {
      subscriber.disconnect();
    },
  };
}
