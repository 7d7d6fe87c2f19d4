/**
 * Cancellation of a running call wherever it runs. A 2025-era `notifications/cancelled` arrives on a
 * request of its own, which a load balancer may send to another replica than the call's: calls in flight
 * are registered here by key ((session, request id), or (principal, request id) in stateless mode), a
 * cancellation aborts the local one, and when there is none here it is published for the other replicas
 * (best effort: a Redis that is away loses it, as a lost notification would be).
 */
import type { MessageBus } from './message-bus.js';

export interface CancellationBus {
  /** Registers a running call; the returned function unregisters it. */
  register(key: string, cancel: () => void): () => void;
  /** Cancels the call registered under `key`, here or on another replica. */
  cancel(key: string): void;
}

/** The key of a call: the namespace (session or principal) it may be cancelled from, and its request id. */
export function callKey(scope: string, requestId: unknown): string {
  return `${scope}\u0000${typeof requestId}:${String(requestId)}`;
}

export function createCancellationBus(bus: MessageBus): CancellationBus {
  const running = new Map<string, () => void>();
  bus.subscribe('mcp:cancel', (key) => running.get(key)?.());
  return {
    register(key, cancel) {
      running.set(key, cancel);
      return () => {
        if (running.get(key) === cancel) running.delete(key);
      };
    },
    cancel(key) {
      const local = running.get(key);
      if (local) local();
      else void bus.publish('mcp:cancel', key);
    },
  };
}
