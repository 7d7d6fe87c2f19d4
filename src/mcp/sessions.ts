/**
 * Live MCP sessions (SPEC section 6): each bound to the identity that created it, closed when idle, and
 * capped twice: per principal (a signed-in user, or the client address of anonymous callers) and in
 * total. At either cap the least recently used idle session (of that principal, or of anyone) is evicted:
 * a flooder only ever displaces its own sessions, a client that forgot to DELETE old sessions (many do)
 * is never locked out, and one flooder cannot lock everyone out. Only when every candidate session has a
 * request in flight is a new one refused. One process holds its own sessions.
 *
 * The registry is a Map kept in recency order (a touched session is re-inserted at the end) rather than
 * an lru-cache: lru-cache evicts its oldest entry unconditionally, and a session with a request in flight
 * must never be the one evicted.
 */
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';

export interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  /** The subject that created the session; null for an anonymous session. */
  owner: string | null;
  /** Whom the session counts against: `user:<subject>` or `address:<client address>`. */
  principal: string;
  lastSeen: number;
  /** Requests on this session still being answered (an open GET stream counts). */
  busy: number;
}

export type NewSession = Omit<Session, 'lastSeen' | 'busy' | 'principal'>;

export interface SessionRegistryOptions {
  maxSessions: number;
  maxPerUser: number;
  maxPerAddress: number;
  idleMs: number;
  logger: Logger;
}

/** Why a new session was refused: its principal's sessions, or all sessions, are busy. */
export type Refusal = 'principal-cap' | 'full';

/** The principal a session or a stateless call counts against. */
export function principalOf(subject: string | null, clientAddress: string): string {
  return subject !== null ? `user:${subject}` : `address:${clientAddress}`;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  /** Sessions plus reservations, per principal. */
  private readonly held = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  /** Sessions being created: counted against the caps before their id exists. */
  private pending = 0;

  constructor(private readonly options: SessionRegistryOptions) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(options.idleMs, 30_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Slots reserved by sessions still being created. */
  get reserved(): number {
    return this.pending;
  }

  /**
   * Runs `start` holding a slot for `principal`. `start` calls `commit` once the session has an id; the
   * slot then belongs to that session. Whatever else happens (start throws, never commits, or throws
   * after committing) the slot is given back, so no error path leaks one.
   */
  async open(
    principal: string,
    start: (commit: (id: string, session: NewSession) => void) => Promise<void>,
  ): Promise<Refusal | undefined> {
    const refusal = this.reserve(principal);
    if (refusal) return refusal;
    let committedId: string | undefined;
    try {
      await start((id, session) => {
        if (committedId !== undefined) return;
        committedId = id;
        this.pending -= 1;
        this.sessions.set(id, { ...session, principal, lastSeen: Date.now(), busy: 0 });
      });
    } catch (error) {
      if (committedId !== undefined) this.close(committedId);
      throw error;
    } finally {
      if (committedId === undefined) {
        this.pending -= 1;
        this.forget(principal);
      }
    }
    return undefined;
  }

  /** The session if it exists and belongs to this caller; a foreign session looks like a missing one. */
  find(id: string, subject: string | null): Session | undefined {
    const session = this.sessions.get(id);
    if (!session || session.owner !== subject) return undefined;
    session.lastSeen = Date.now();
    // Re-inserting keeps the Map in least-recently-used-first order.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** Marks the session busy until `done` fires (the response closed): a busy session is never evicted. */
  track(session: Session, done: (listener: () => void) => void): void {
    session.busy += 1;
    done(() => {
      session.busy -= 1;
      session.lastSeen = Date.now();
    });
  }

  delete(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.forget(session.principal);
  }

  /**
   * Tells every session's client that the tool list changed. The notification goes out on the
   * session's standalone stream (GET); a client without one re-reads the list when it next asks.
   */
  notifyToolListChanged(): void {
    for (const session of this.sessions.values()) {
      session.server.server.sendToolListChanged().catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.keys()];
    await Promise.allSettled(all.map((id) => this.close(id)));
  }

  private reserve(principal: string): Refusal | undefined {
    const cap = principal.startsWith('user:') ? this.options.maxPerUser : this.options.maxPerAddress;
    if ((this.held.get(principal) ?? 0) >= cap && !this.evictLeastRecentlyUsedIdle(principal))
      return 'principal-cap';
    if (this.sessions.size + this.pending >= this.options.maxSessions && !this.evictLeastRecentlyUsedIdle())
      return 'full';
    this.pending += 1;
    this.held.set(principal, (this.held.get(principal) ?? 0) + 1);
    return undefined;
  }

  private forget(principal: string): void {
    const count = (this.held.get(principal) ?? 0) - 1;
    if (count > 0) this.held.set(principal, count);
    else this.held.delete(principal);
  }

  /** Closes the least recently used idle session (of `principal` only, when given); false if none is idle. */
  private evictLeastRecentlyUsedIdle(principal?: string): boolean {
    for (const [id, session] of this.sessions) {
      if (session.busy > 0 || (principal !== undefined && session.principal !== principal)) continue;
      this.options.logger.info({ sessionId: id }, 'evicting the least recently used idle MCP session');
      void this.close(id);
      return true;
    }
    return false;
  }

  private close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return Promise.resolve();
    this.delete(id);
    return session.transport.close().catch(() => undefined);
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.busy === 0 && session.lastSeen < cutoff) {
        this.options.logger.info({ sessionId: id }, 'closing idle MCP session');
        void this.close(id);
      }
    }
  }
}
