/**
 * Where 2025-era MCP sessions live (the SPEC's Streamable HTTP sessions): in the process
 * (memory-session-store.ts) or, with REDIS_URL, in Redis (redis-session-store.ts), so that any replica
 * serves any request of a session. A session is a record, not a server: every request is answered by a fresh
 * server and transport, so no replica holds anything a session needs.
 *
 * Both stores keep the same rules: a session is bound to the identity that created it (a foreign one looks
 * missing), capped per principal and in total (at a cap the least recently used idle session of that
 * principal, or of anyone, gives way; only when every candidate is busy is a new one refused), busy while a
 * request on it is being answered, and closed after MCP_SESSION_IDLE_SECONDS without use.
 */
import { addressKey } from '../limits/address-key.js';

export interface SessionRecord {
  id: string;
  /** The subject that created the session; null for an anonymous session. */
  owner: string | null;
  /** Whom the session counts against: `user:<subject>` or `address:<client address key>`. */
  principal: string;
  /** The revision negotiated by initialize. */
  protocolVersion: string;
  /** From the initialize params, kept for the life of the session. */
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
}

/** Why a new session was refused: its principal's sessions, or all sessions, are busy. */
export type Refusal = 'principal-cap' | 'full';

/**
 * A request in flight on a session: while held, the session is never evicted and never expires.
 * `release` is idempotent and never throws; it also counts as a use of the session.
 *
 * A hold is a lease: the store renews it only while its request says it is live, and releases it the
 * first time the request says it is not (a request that closed without releasing, whatever it was
 * waiting for). A lease nobody renews (its replica crashed, or a stall delivered the command that took
 * it after the request had given up) lapses by itself.
 */
export interface SessionHold {
  release(): void;
}

/** Whether the request a hold is for is still live (connected, or still working on its answer). */
export type IsLive = () => boolean;

export interface SessionStore {
  /** Opens a session under the caps, held (it is being initialized) until the hold is released. */
  open(record: SessionRecord, live?: IsLive): Promise<{ refusal: Refusal } | { hold: SessionHold }>;
  /** The session if it exists and belongs to `subject`, touched and held; a foreign one looks missing. */
  use(
    id: string,
    subject: string | null,
    live?: IsLive,
  ): Promise<{ record: SessionRecord; hold: SessionHold } | undefined>;
  /** Ends the session if it belongs to `subject`; false if there was none to end. */
  delete(id: string, subject: string | null): Promise<boolean>;
  /** Ends a session whatever its owner (an initialize that failed). */
  discard(id: string): Promise<void>;
  /** Called on this replica whenever a session ends on any replica (DELETE, eviction, expiry if seen). */
  onClosed(listener: (id: string) => void): void;
  close(): Promise<void>;
}

/**
 * Session state could not be read or written (Redis unreachable or failing). Never answered with local
 * sessions instead: the other replicas could not see them.
 */
export class SessionStateUnavailable extends Error {
  constructor(cause: unknown) {
    super('session state is unavailable', { cause });
    this.name = 'SessionStateUnavailable';
  }
}

/**
 * The principal a session or a stateless call counts against: a signed-in subject, or the client's
 * address under the rate limits' key (an IPv6 /64 is one client, an IPv4-mapped address its IPv4 form).
 */
export function principalOf(subject: string | null, clientAddress: string): string {
  return subject !== null ? `user:${subject}` : `address:${addressKey(clientAddress)}`;
}

export interface SessionCaps {
  maxSessions: number;
  maxPerUser: number;
  maxPerAddress: number;
  idleMs: number;
}

export function capFor(principal: string, caps: SessionCaps): number {
  return principal.startsWith('user:') ? caps.maxPerUser : caps.maxPerAddress;
}
