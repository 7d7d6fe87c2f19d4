/**
 * Answers to the requests a 2025 session's call sends its client (elicitation/create, to confirm a
 * destructive tool): the client POSTs its answer as a JSON-RPC response on a later request, which a
 * load balancer may send to another replica than the waiting call's, and which is answered by another
 * server instance than the one that asked anyway (sessions are served per request). Waiting calls are
 * registered here by key ((session, request id): the answer's session must be the asker's), an answer
 * goes to the local waiter, and when there is none here it is published for the other replicas (with
 * REDIS_URL; best effort, as cancellations are: an answer Redis loses is an unanswered question, which
 * its bound settles). The first answer settles a question; later ones find no waiter and are dropped.
 */
import type { RedisBus } from './redis-bus.js';

/** A client's answer, reduced to what a waiter reads (only this crosses Redis). */
export type ClientAnswer = { result: Record<string, unknown> } | { error: string };

export interface ClientAnswers {
  /** Waits for the answer under `key`; the returned function stops waiting. */
  expect(key: string, settle: (answer: ClientAnswer) => void): () => void;
  /** Hands an answer to its waiter, here or on another replica; without one it is dropped. */
  deliver(key: string, answer: ClientAnswer): void;
}

export function createClientAnswers(bus?: { redis: RedisBus; channel: string }): ClientAnswers {
  const waiting = new Map<string, (answer: ClientAnswer) => void>();
  const settle = (key: string, answer: ClientAnswer) => {
    const waiter = waiting.get(key);
    if (!waiter) return false;
    waiting.delete(key);
    waiter(answer);
    return true;
  };
  // Published as [key, answer] by a replica of ours; anything else is ignored (the bus logs a throw).
  bus?.redis.subscribe(bus.channel, (message) => {
    const [key, answer] = JSON.parse(message) as [unknown, unknown];
    if (typeof key === 'string' && typeof answer === 'object' && answer !== null)
      settle(key, answer as ClientAnswer);
  });
  return {
    expect(key, waiter) {
      waiting.set(key, waiter);
      return () => {
        if (waiting.get(key) === waiter) waiting.delete(key);
      };
    },
    deliver(key, answer) {
      if (!settle(key, answer)) void bus?.redis.publish(bus.channel, JSON.stringify([key, answer]));
    },
  };
}
