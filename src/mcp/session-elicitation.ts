/**
 * Elicitation in a 2025 session served per request (confirm-call.ts asks a user this way): the question
 * goes out as an elicitation/create request on the waiting call's own stream (stored in the event store
 * like the rest of it, so a resumed stream carries it too), and the client's answer comes back as a
 * JSON-RPC response on a later POST, served by another server instance, maybe on another replica. So
 * the question is not the SDK's request (its ids count from 0 in every fresh server, and it could only
 * hear answers on its own transport): its id is ours, unique in the session whatever the number of
 * calls asking at once, and the answer reaches the call through the shared answers (client-answers.ts),
 * keyed by session and id.
 *
 * A question always settles: the answer, or none within the bound (the client is told to stop asking),
 * or the session ended, or it could not be sent, or the call was cancelled (the wait throws the call's
 * reason).
 */
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { callKey } from '../shared-state/cancellation-bus.js';
import type { ClientAnswer, ClientAnswers } from '../shared-state/client-answers.js';

/** A form elicitation's content. */
export interface ElicitationQuestion {
  message: string;
  requestedSchema: Record<string, unknown>;
}

/**
 * How a question ended: the client's answer, or no answer within the bound, or its session ended, or
 * the question could not be sent at all (the client declared elicitation but its stream is gone).
 */
export type ElicitationOutcome = ClientAnswer | { unanswered: 'timeout' | 'session-ended' | 'unsent' };

/** Asks the call's client; rejects with the signal's reason when the call is cancelled first. */
export type Elicit = (question: ElicitationQuestion, signal: AbortSignal) => Promise<ElicitationOutcome>;

const ID_PREFIX = 'moviedb-elicit-';
const ID_PATTERN = /^moviedb-elicit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface SessionElicitation {
  /** The asker for one call of `sessionId`, which sends on that call's stream. */
  forCall(sessionId: string, send: (message: JSONRPCMessage) => Promise<void>): Elicit;
  /**
   * Hands a client's answer (its session's owner already checked) to the question it answers, here or
   * on another replica; an id that cannot be one of ours is dropped without a word to anyone.
   */
  answer(sessionId: string, id: unknown, answer: ClientAnswer): void;
  /** Settles the questions this replica is waiting on in a session that ended. */
  endSession(sessionId: string): void;
}

export function createSessionElicitation(answers: ClientAnswers, timeoutMs: number): SessionElicitation {
  const asking = new Map<string, Set<() => void>>();

  return {
    forCall(sessionId, send) {
      return (question, signal) =>
        new Promise<ElicitationOutcome>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason as Error);
          const id = `${ID_PREFIX}${randomUUID()}`;
          const stopAsking = () =>
            send({
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId: id, reason: 'The question is no longer waited for' },
            }).catch(() => undefined);
          const pending = asking.get(sessionId) ?? new Set<() => void>();
          asking.set(sessionId, pending);
          let settled = false;
          /** With an outcome resolves; without, rejects (with the call's reason unless given one). */
          const settle = (outcome?: ElicitationOutcome, failure: unknown = signal.reason) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            stopWaiting();
            signal.removeEventListener('abort', onAbort);
            pending.delete(ended);
            if (pending.size === 0 && asking.get(sessionId) === pending) asking.delete(sessionId);
            if (outcome) resolve(outcome);
            else reject(failure as Error);
          };
          const ended = () => settle({ unanswered: 'session-ended' });
          const onAbort = () => {
            void stopAsking();
            settle();
          };
          const stopWaiting = answers.expect(callKey(sessionId, id), (answer) => settle(answer));
          const timer = setTimeout(() => {
            void stopAsking();
            settle({ unanswered: 'timeout' });
          }, timeoutMs);
          pending.add(ended);
          signal.addEventListener('abort', onAbort, { once: true });
          // A question that cannot go out is no error of the call: confirm-call.ts asks in two steps instead.
          send({
            jsonrpc: '2.0',
            id,
            method: 'elicitation/create',
            // No `mode`: form is what it means when absent, in 2025-06-18 and 2025-11-25 alike.
            params: { message: question.message, requestedSchema: question.requestedSchema },
          }).catch(() => (signal.aborted ? settle() : settle({ unanswered: 'unsent' })));
        });
    },
    answer(sessionId, id, answer) {
      if (typeof id === 'string' && ID_PATTERN.test(id)) answers.deliver(callKey(sessionId, id), answer);
    },
    endSession(sessionId) {
      for (const ended of [...(asking.get(sessionId) ?? [])]) ended();
    },
  };
}
