/**
 * Answers to the requests a 2025 session's call sends its client (elicitation/create, to confirm a
 * destructive tool): the client POSTs its answer as a JSON-RPC response on a later request, which a
 * load balancer may send to another replica than the waiting call's, and which is answered by another
 * server instance than the one that asked anyway (sessions are served per request). Waiting calls are
 * registered here by key ((session, request id): the answer's session must be the asker's), an answer
 * goes to the local waiter, and when there is none here it is published for the other replicas (best
 * effort, as cancellations are: an answer Redis loses is an unanswered question, which
 * its bound settles). The first answer settles a question; later ones find no waiter and are dropped.
 */
import type { MessageBus } from './message-bus.js';

/** A client's answer, reduced to what a waiter reads (only this crosses Redis). */
export type ClientAnswer = { result: Record<string, unknown> } | { error: string };

export interface ClientAnswers {
  /** Waits for the answer under `key`; the returned function stops waiting. */
  expect(key: string, settle: (answer: ClientAnswer) => void): () => void;
  /** Hands an answer to its waiter, here or on another replica; without one it is dropped. */
  deliver(key: string, answer: ClientAnswer): void;
}

export function createClientAnswers(bus: MessageBus): ClientAnswers {
  const waiting = new Map<string, (answer: ClientAnswer) => void>();
  const settle = (key: string, answer: ClientAnswer) => {
    const waiter = waiting.get(key);
    if (!waiter) return false;
    waiting.delete(key);
    waiter(answer);
    return true;
  };
  bus.subscribe('mcp:answer', ({ key, answer }) => settle(key, answer));
  return {
    expect(key, waiter) {
      waiting.set(key, waiter);
      return () => {
        if (waiting.get(key) === waiter) waiting.delete(key);
      };
    },
    deliver(key, answer) {
      if (!settle(key, answer)) void bus.publish('mcp:answer', { key, answer });
    },
  };
}
