/**
 * The process's Redis (REDIS_URL): one command connection, one subscriber connection for the message
 * bus (opened when something first subscribes), and a reader connection per follower of a resumable
 * stream (redis-event-store.ts). Every connection is named `<REDIS_KEY_PREFIX>:<replica>:<role>` (CLIENT
 * LIST tells whose it is), and all reconnect by one rule: in the background, backing off to
 * MAX_RECONNECT_DELAY_MS, for as long as the process runs.
 *
 * The command connection is configured so that Redis can never hold a request: connecting is bounded,
 * commands never queue while disconnected (they fail at once, so the caller degrades as
 * degradation.ts says), and a command on a stalled connection fails after a short timeout.
 */
import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';
import type { MessageBus } from './message-bus.js';
import { createRedisBus } from './redis-bus.js';

/** Past this, a Redis command counts as failed and the feature degrades instead. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 1000;
/** Reconnection backs off to this and stays there while Redis is away. */
const MAX_RECONNECT_DELAY_MS = 2000;

/** What a connection of this process is for, as its client name ends. */
export type ConnectionRole = 'cmd' | 'sub' | 'read';

export interface RedisConnection {
  client: Redis;
  /** REDIS_KEY_PREFIX: every key and channel of this deployment starts with it. */
  namespace: string;
  /** This process among the replicas (client names, session and stream leases). */
  replicaId: string;
  /** The process's one message bus, on its one subscriber connection. */
  bus: MessageBus;
  /** A further connection of this process (not connected yet: lazyConnect), named for its role. */
  duplicate(role: ConnectionRole, options?: RedisOptions): Redis;
  /** `ok` when a PING answers within the command timeout, `down` otherwise (never throws, never hangs). */
  health(): Promise<'ok' | 'down'>;
  close(): Promise<void>;
}

export interface RedisConnectionOptions {
  url: string;
  namespace: string;
  logger: Logger;
}

export function createRedisConnection({ url, namespace, logger }: RedisConnectionOptions): RedisConnection {
  const replicaId = randomBytes(8).toString('hex');
  const nameFor = (role: ConnectionRole) => `${namespace}:${replicaId}:${role}`;
  const client = new Redis(url, {
    connectionName: nameFor('cmd'),
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
    if (up) logger.warn({ err: error }, 'redis unreachable: shared state degrades until it returns');
    up = false;
  });
  client.on('close', () => {
    if (up) logger.warn('redis connection closed: shared state degrades until it returns');
    up = false;
  });
  const duplicate = (role: ConnectionRole, options: RedisOptions = {}) =>
    client.duplicate({ ...options, connectionName: nameFor(role), lazyConnect: true });
  const bus = createRedisBus({
    client,
    // A subscribed connection only listens: none of its commands is waited for by a request.
    subscriber: duplicate('sub', { commandTimeout: undefined, autoResubscribe: false }),
    namespace,
    logger,
  });
  return {
    client,
    namespace,
    replicaId,
    bus,
    duplicate,
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
      await bus.close();
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
