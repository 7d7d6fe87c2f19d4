/**
 * The state 2025-era MCP sessions share: their records, their resumable streams, cancellation of
 * their calls and the answers their calls wait for. In Redis when REDIS_URL is set (any replica serves
 * any request of a session), else in this process. With Redis set but away, each degrades as
 * degradation.ts says: session requests fail with a clear error rather than fall back to local
 * sessions the other replicas could not see.
 */
import type { Logger } from '../logger.js';
import { createCancellationBus, type CancellationBus } from './cancellation-bus.js';
import { createClientAnswers, type ClientAnswers } from './client-answers.js';
import type { ResumableEventStore } from './event-store.js';
import { createLocalBus } from './message-bus.js';
import { createMemoryEventStore } from './memory-event-store.js';
import { createMemorySessionStore } from './memory-session-store.js';
import type { RedisConnection } from './redis-connection.js';
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
  /** The process's Redis; its connection and bus are closed by their owner, not here. */
  redis?: RedisConnection;
}

export function createSharedState(options: SharedStateOptions): SharedState {
  const { caps, logger, redis } = options;
  const bus = redis?.bus ?? createLocalBus(logger);
  const sessions = redis
    ? createRedisSessionStore({ ...caps, redis, logger })
    : createMemorySessionStore(caps, logger);
  const events = redis
    ? createRedisEventStore({ redis, retentionMs: options.resumeWindowMs, logger })
    : createMemoryEventStore(options.resumeWindowMs);
  return {
    kind: redis ? 'redis' : 'memory',
    sessions,
    events,
    cancellations: createCancellationBus(bus),
    answers: createClientAnswers(bus),
    async close() {
      await sessions.close();
      await events.close();
    },
  };
}
