/**
 * The state 2025-era MCP sessions share: their records, their resumable streams, cancellation of
 * their calls and the answers their calls wait for. In Redis when REDIS_URL is set (any replica serves any request of a session), else in
 * this process. With Redis set but away, session requests fail with a clear error rather than fall back
 * to local sessions the other replicas could not see.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { createCancellationBus, type CancellationBus } from './cancellation-bus.js';
import { createClientAnswers, type ClientAnswers } from './client-answers.js';
import type { ResumableEventStore } from './event-store.js';
import { createMemoryEventStore } from './memory-event-store.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { createRedisBus } from './redis-bus.js';
import { createRedisEventStore } from './redis-event-store.js';
import { createRedisSessionStore } from './redis-session-store.js';
import type { SessionCaps, SessionStore } from './session-store.js';

export interface SharedState {
  kind: 'memory' | 'redis';
  sessions: SessionStore;
  events: ResumableEventStore;
  cancellations: CancellationBus;
  /** Answers to the questions (elicitation/create) sessions' calls wait for, wherever they arrive. */
  answers: ClientAnswers;
  /** Stops timers and listeners. Sessions in Redis stay there: the other replicas go on serving them. */
  close(): Promise<void>;
}

export interface SharedStateOptions {
  caps: SessionCaps;
  /** How long a cut stream can be resumed after its last event. */
  resumeWindowMs: number;
  logger: Logger;
  redis?: { client: Redis; namespace: string };
}

export function createSharedState(options: SharedStateOptions): SharedState {
  const { caps, logger, redis } = options;
  if (!redis) {
    const sessions = createMemorySessionStore(caps, logger);
    const events = createMemoryEventStore(options.resumeWindowMs);
    return {
      kind: 'memory',
      sessions,
      events,
      cancellations: createCancellationBus(),
      answers: createClientAnswers(),
      async close() {
        await sessions.close();
        await events.close();
      },
    };
  }
  const { client, namespace } = redis;
  const replicaId = randomBytes(8).toString('hex');
  const bus = createRedisBus(client, logger);
  const sessions = createRedisSessionStore({ ...caps, client, bus, namespace, replicaId, logger });
  const events = createRedisEventStore({
    client,
    namespace,
    replicaId,
    retentionMs: options.resumeWindowMs,
    logger,
  });
  return {
    kind: 'redis',
    sessions,
    events,
    cancellations: createCancellationBus({ redis: bus, channel: `${namespace}:mcp:cancel` }),
    answers: createClientAnswers({ redis: bus, channel: `${namespace}:mcp:answer` }),
    async close() {
      await sessions.close();
      await events.close();
      await bus.close();
    },
  };
}
