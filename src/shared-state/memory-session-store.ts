/**
 * Sessions held by this process (no REDIS_URL): one replica, as before issue 8.
 *
 * A Map kept in recency order (a touched session is re-inserted at the end) rather than an lru-cache:
 * lru-cache evicts its oldest entry unconditionally, and a session with a request in flight must never
 * be the one evicted.
 */
import type { Logger } from '../logger.js';
import {
  capFor,
  type Refusal,
  type SessionCaps,
  type SessionHold,
  type SessionRecord,
  type SessionStore,
} from './session-store.js';

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
  const holdOn = (entry: Entry): SessionHold => {
    entry.busy += 1;
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        entry.busy -= 1;
        entry.lastSeen = Date.now();
      },
    };
  };
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
    async open(record) {
      const { principal } = record;
      let refusal: Refusal | undefined;
      if ((held.get(principal) ?? 0) >= capFor(principal, caps) && !evictLeastRecentlyUsedIdle(principal))
        refusal = 'principal-cap';
      else if (sessions.size >= caps.maxSessions && !evictLeastRecentlyUsedIdle()) refusal = 'full';
      if (refusal) return { refusal };
      held.set(principal, (held.get(principal) ?? 0) + 1);
      const entry: Entry = { record, lastSeen: Date.now(), busy: 0 };
      sessions.set(record.id, entry);
      return { hold: holdOn(entry) };
    },
    async use(id, subject) {
      const entry = sessions.get(id);
      if (!entry || entry.record.owner !== subject) return undefined;
      entry.lastSeen = Date.now();
      // Re-inserting keeps the Map in least-recently-used-first order.
      sessions.delete(id);
      sessions.set(id, entry);
      return { record: entry.record, hold: holdOn(entry) };
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
      for (const id of [...sessions.keys()]) remove(id);
    },
  };
}
