/**
 * Sessions held by this process (no REDIS_URL): one replica.
 *
 * A Map kept in recency order (a touched session is re-inserted at the end) rather than an lru-cache:
 * lru-cache evicts its oldest entry unconditionally, and a session with a request in flight must never
 * be the one evicted.
 */
import type { Logger } from '../logger.js';
import {
  capFor,
  type IsLive,
  type Refusal,
  type SessionCaps,
  type SessionHold,
  type SessionRecord,
  type SessionStore,
} from './session-store.js';

/** How often holds whose requests are no longer live are released. */
const RECONCILE_MS = 1000;

interface Entry {
  record: SessionRecord;
  lastSeen: number;
  /** Requests on this session still being answered (an open GET stream counts). */
  busy: number;
}

export function createMemorySessionStore(
  caps: SessionCaps,
  logger: Logger,
): SessionStore & { readonly size: number } {
  const sessions = new Map<string, Entry>();
  const held = new Map<string, number>();
  const listeners: ((id: string) => void)[] = [];

  const forget = (principal: string) => {
    const count = (held.get(principal) ?? 0) - 1;
    if (count > 0) held.set(principal, count);
    else held.delete(principal);
  };
  const remove = (id: string): boolean => {
    const entry = sessions.get(id);
    if (!entry) return false;
    sessions.delete(id);
    forget(entry.record.principal);
    for (const listener of listeners) listener(id);
    return true;
  };
  /** Holds whose requests may still be live, with how to ask them. */
  const holds = new Map<SessionHold, IsLive>();
  const holdOn = (entry: Entry, live: IsLive): SessionHold => {
    entry.busy += 1;
    let released = false;
    const hold: SessionHold = {
      release() {
        if (released) return;
        released = true;
        holds.delete(hold);
        entry.busy -= 1;
        entry.lastSeen = Date.now();
      },
    };
    holds.set(hold, live);
    return hold;
  };
  const always: IsLive = () => true;
  // The reconciliation the Redis store runs with its heartbeat: a request that closed without releasing
  // gives its session back.
  const reconciler = setInterval(() => {
    for (const [hold, live] of holds) if (!live()) hold.release();
  }, RECONCILE_MS);
  reconciler.unref();
  /** Removes the least recently used idle session (of `principal` only, when given); false if none is idle. */
  const evictLeastRecentlyUsedIdle = (principal?: string): boolean => {
    for (const [id, entry] of sessions) {
      if (entry.busy > 0 || (principal !== undefined && entry.record.principal !== principal)) continue;
      logger.info({ sessionId: id }, 'evicting the least recently used idle MCP session');
      return remove(id);
    }
    return false;
  };

  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - caps.idleMs;
      for (const [id, entry] of sessions) {
        if (entry.busy === 0 && entry.lastSeen < cutoff) {
          logger.info({ sessionId: id }, 'closing idle MCP session');
          remove(id);
        }
      }
    },
    Math.min(caps.idleMs, 30_000),
  );
  sweeper.unref();

  return {
    get size() {
      return sessions.size;
    },
    async open(record, live = always) {
      const { principal } = record;
      let refusal: Refusal | undefined;
      if ((held.get(principal) ?? 0) >= capFor(principal, caps) && !evictLeastRecentlyUsedIdle(principal))
        refusal = 'principal-cap';
      else if (sessions.size >= caps.maxSessions && !evictLeastRecentlyUsedIdle()) refusal = 'full';
      if (refusal) return { refusal };
      held.set(principal, (held.get(principal) ?? 0) + 1);
      const entry: Entry = { record, lastSeen: Date.now(), busy: 0 };
      sessions.set(record.id, entry);
      return { hold: holdOn(entry, live) };
    },
    async use(id, subject, live = always) {
      const entry = sessions.get(id);
      if (!entry || entry.record.owner !== subject) return undefined;
      entry.lastSeen = Date.now();
      // Re-inserting keeps the Map in least-recently-used-first order.
      sessions.delete(id);
      sessions.set(id, entry);
      return { record: entry.record, hold: holdOn(entry, live) };
    },
    async delete(id, subject) {
      const entry = sessions.get(id);
      if (!entry || entry.record.owner !== subject) return false;
      return remove(id);
    },
    async discard(id) {
      remove(id);
    },
    onClosed(listener) {
      listeners.push(listener);
    },
    async close() {
      clearInterval(sweeper);
      clearInterval(reconciler);
      for (const id of [...sessions.keys()]) remove(id);
    },
  };
}
