/**
 * The one channel between the replicas of a deployment: typed publish and subscribe by channel name
 * (bus-messages.ts lists the kinds). With Redis it is Redis pub/sub (redis-bus.ts); in one process it
 * is the local bus below, which hands a message to this process's subscribers only. Every message is
 * best effort: publishing never throws, never waits for Redis, and a message sent while Redis is away is
 * lost. Whoever must not miss one (a cache) resets on `onResubscribe`.
 */
import type { Logger } from '../logger.js';
import type { BusChannel, BusMessage } from './bus-messages.js';

export interface MessageBus {
  /** Sends `message` to every subscriber of `channel`, this process's included. Never rejects. */
  publish<C extends BusChannel>(channel: C, message: BusMessage<C>): Promise<void>;
  /** Calls `handler` with each message on `channel`; the returned function stops it. */
  subscribe<C extends BusChannel>(channel: C, handler: (message: BusMessage<C>) => void): () => void;
  /**
   * Calls `listener` each time the bus is listening again after a time it was not (first connection,
   * reconnection): messages sent in between were missed.
   */
  onResubscribe(listener: () => void): void;
  /** The channel's name in Redis (`<namespace>:<channel>`), for a script that publishes on it. */
  channelName(channel: BusChannel): string;
  close(): Promise<void>;
}

/** Subscribers by channel, and the delivery every bus shares: a throwing handler harms no other. */
export function createSubscribers(onError: (error: unknown, channel: BusChannel) => void) {
  const handlers = new Map<BusChannel, Set<(message: never) => void>>();
  return {
    channels: () => [...handlers.keys()],
    add<C extends BusChannel>(channel: C, handler: (message: BusMessage<C>) => void): () => void {
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(handler);
      return () => set.delete(handler);
    },
    deliver<C extends BusChannel>(channel: C, message: BusMessage<C>): void {
      for (const handler of handlers.get(channel) ?? []) {
        try {
          (handler as (message: BusMessage<C>) => void)(message);
        } catch (error) {
          onError(error, channel);
        }
      }
    },
  };
}

/** One process, no Redis: a message reaches this process's subscribers (there is no one else). */
export function createLocalBus(logger: Pick<Logger, 'warn'>): MessageBus {
  const subscribers = createSubscribers((error, channel) =>
    logger.warn({ err: error, channel }, 'a shared-state message could not be handled'),
  );
  return {
    async publish(channel, message) {
      // Delivered after the publisher's turn, as a message through Redis would be.
      queueMicrotask(() => subscribers.deliver(channel, message));
    },
    subscribe: (channel, handler) => subscribers.add(channel, handler),
    onResubscribe() {},
    channelName: (channel) => channel,
    async close() {},
  };
}
