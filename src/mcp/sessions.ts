/**
 * Live MCP sessions: each bound to the identity that created it, closed when idle, capped in number
 * (SPEC section 6). One process holds its own sessions.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../logger.js';

export interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The subject that created the session; null for an anonymous session. */
  owner: string | null;
  lastSeen: number;
}

export interface SessionRegistryOptions {
  maxSessions: number;
  idleMs: number;
  logger: Logger;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  /** Sessions being created: counted against the cap before their id exists. */
  private pending = 0;

  constructor(private readonly options: SessionRegistryOptions) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(options.idleMs, 30_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Reserves room for a new session, or false when the cap is reached. */
  reserve(): boolean {
    if (this.sessions.size + this.pending >= this.options.maxSessions) return false;
    this.pending += 1;
    return true;
  }

  release(): void {
    this.pending = Math.max(0, this.pending - 1);
  }

  add(id: string, session: Session): void {
    this.release();
    this.sessions.set(id, session);
  }

  /** The session if it exists and belongs to this caller; a foreign session looks like a missing one. */
  find(id: string, subject: string | null): Session | undefined {
    const session = this.sessions.get(id);
    if (!session || session.owner !== subject) return undefined;
    session.lastSeen = Date.now();
    return session;
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) {
        this.options.logger.info({ sessionId: id }, 'closing idle MCP session');
        this.sessions.delete(id);
        void session.transport.close().catch(() => undefined);
      }
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(all.map((s) => s.transport.close()));
  }
}
