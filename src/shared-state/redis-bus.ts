/**
 * The message bus over Redis pub/sub, on the process's one subscriber connection (a subscribed
 * connection runs no other command, so it is a connection of its own; every subscription of the process
 * shares it). It reconnects by the main connection's rule and, each time it is ready, subscribes to every
 * channel anyone asked for and then tells `onResubscribe` listeners that they may have missed messages.
 * Publishing goes through the main connection, which fails fast while Redis is away: a message is lost,
 * never queued.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { BUS_MESSAGES, type BusChannel } from './bus-messages.js';
import { createSubscribers, type MessageBus } from './message-bus.js';

export interface RedisBusOptions {
  /** Publishes (the shared connection). */
  client: Redis;
  /** The subscriber connection, not yet connected (lazyConnect): the bus connects it on first use. */
  subscriber: Redis;
  namespace: string;
  logger: Logger;
}

export function createRedisBus({ client, subscriber, namespace, logger }: RedisBusOptions): MessageBus {
  const prefix = `${namespace}:`;
  const subscribers = createSubscribers((error, channel) =>
    logger.warn({ err: error, channel }, 'a shared-state message could not be handled'),
  );
  const resubscribed: (() => void)[] = [];
  const names = new Map<string, BusChannel>();
  const nameOf = (channel: BusChannel) => `${prefix}${channel}`;

  subscriber.on('error', () => undefined); // the main connection reports Redis going away and back
  subscriber.on('ready', () => {
    const channels = [...names.keys()];
    if (channels.length === 0) return;
    subscriber.subscribe(...channels).then(
      () => resubscribed.forEach((listener) => listener()),
      (error: unknown) => logger.warn({ err: error }, 'shared-state bus: could not subscribe'),
    );
  });
  subscriber.on('message', (name: string, text: string) => {
    const channel = names.get(name);
    if (channel === undefined) return;
    const message = BUS_MESSAGES[channel].decode(text);
    if (message === undefined) {
      logger.warn({ channel }, 'a shared-state message that does not decode was dropped');
      return;
    }
    subscribers.deliver(channel, message);
  });

  return {
    async publish(channel, message) {
      try {
        await client.publish(nameOf(channel), BUS_MESSAGES[channel].encode(message as never));
      } catch (error) {
        logger.debug({ err: error, channel }, 'a shared-state message could not be published');
      }
    },
    subscribe(channel, handler) {
      const name = nameOf(channel);
      if (!names.has(name)) {
        names.set(name, channel);
        if (subscriber.status === 'wait') subscriber.connect().catch(() => undefined);
        // Not ready yet: the ready handler subscribes to it with the others.
        else if (subscriber.status === 'ready') subscriber.subscribe(name).catch(() => undefined);
      }
      return subscribers.add(channel, handler);
    },
    onResubscribe(listener) {
      resubscribed.push(listener);
    },
    channelName: nameOf,
    async close() {
      subscriber.disconnect();
    },
  };
}
