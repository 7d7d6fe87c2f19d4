/**
 * Passes result-cache invalidations between replicas on the message bus: a write here is announced,
 * and a write announced by another replica clears the cache here. Best effort (degradation.ts): while
 * the bus is not listening other replicas' writes are missed, so the cache is cleared again whenever it
 * listens again, and entries expire anyway (RESULT_CACHE_TTL_SECONDS). Announcing never blocks a request.
 */
import { randomUUID } from 'node:crypto';
import type { MessageBus } from './message-bus.js';

/** The part of the result cache this needs (src/graphql/result-cache.ts), by shape: no import upward. */
export interface InvalidatedCache {
  /** Clears the cache; `announce: false` for a clear that must not be announced again. */
  invalidate(announce?: boolean): void;
  /** Called on every clear this process announces. */
  onInvalidate(listener: () => void): void;
}

export function shareInvalidations(
  cache: InvalidatedCache,
  bus: MessageBus,
  options: { onRemote?: () => void } = {},
): () => void {
  // Our own announcements come back to us: the instance id tells them apart.
  const instance = randomUUID();
  const stop = bus.subscribe('result-cache:invalidate', (from) => {
    if (from === instance) return;
    cache.invalidate(false);
    options.onRemote?.();
  });
  // Writes announced while we were not listening are lost: start afresh.
  bus.onResubscribe(() => cache.invalidate(false));
  cache.onInvalidate(() => void bus.publish('result-cache:invalidate', instance));
  return stop;
}
