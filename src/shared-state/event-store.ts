/**
 * Resumable SSE for 2025-era session calls (2025-11-25, "Resumability and Redelivery"): every event a
 * tools/call's response stream carries is stored under an id the client sees, so a client whose stream
 * was cut reconnects with GET + Last-Event-ID, on any replica, and receives the rest, the response
 * included. In the process (memory-event-store.ts) or in Redis Streams (redis-event-store.ts).
 *
 * The replica running a call holds a lease on its stream until the call's response is stored, so a
 * follower never waits for a response nobody will write: lease gone and no response means the replica
 * stopped (or the call was cancelled), and the follower answers that itself.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** What a stream answers: a request of a session. Stored with its first event. */
export interface StreamInfo {
  sessionId: string;
  requestId: string | number;
  method: string;
}

export interface StoredStreamInfo extends StreamInfo {
  /** Whether the stream holds its request's response (or the abandoned-call error) already. */
  answered: boolean;
}

export interface StoredEvent {
  id: string;
  message: JSONRPCMessage;
}

/** The SDK's EventStore for one call's stream, holding the call's lease until its response is stored. */
interface CallEventStore extends EventStore {
  /** Gives the lease up (the call ended without a response: cancelled). Idempotent, never throws. */
  finish(): void;
  /**
   * The stream ended normally, its response (if any) written out in full: it was not disconnected, so
   * there is nothing to resume and the store may forget it now. Never throws.
   */
  forget(): void;
}

/**
 * The stream of a session call answered on the lean path (src/http/session-tool-call.ts). It is
 * registered when the call starts (what it answers, and the lease, so a follower on any replica can
 * wait for it or learn that its replica stopped), but its events are not stored: the priming event
 * carries no message, and the response is stored only when the client went away before it was
 * written out (`store`). A response the live stream delivered is never stored (`forget`). Nothing here
 * is awaited on the call's path, and nothing throws: a store that fails loses resumability, not the call.
 */
interface LeanCallStream {
  /** The id of the priming event: a resume from it replays the whole stream. */
  readonly primingEventId: string;
  /** The id the response carries on the live stream (the position a stored one would not precede). */
  readonly responseEventId: string;
  /** The client is gone before the response was written out: store it for a resume, give the lease up. */
  store(responseJson: string): void;
  /** The response went out on a stream that ended normally: drop the stream's record and lease. */
  forget(): void;
  /** Cancelled, no response: give the lease up (a follower answers the abandoned-call error). */
  finish(): void;
}

interface EventReader {
  /** Events after `after`, in order; when there are none yet, waits up to `waitMs` for one. */
  read(streamId: string, after: string, waitMs: number): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

export interface ResumableEventStore {
  /** `attached` says whether the client still reads the live stream (Redis keeps a delivered response briefly). */
  forCall(info: StreamInfo, attached: () => boolean): CallEventStore;
  /** Registers a lean call's stream (a fresh stream id) and holds its lease. */
  forLeanCall(info: StreamInfo): LeanCallStream;
  /** The stream a Last-Event-ID names and the position after which to replay, if it is one of ours. */
  parseEventId(eventId: string): { streamId: string; position: string } | undefined;
  info(streamId: string): Promise<StoredStreamInfo | undefined>;
  leaseHeld(streamId: string): Promise<boolean>;
  /** Stores the answer a follower gives for an abandoned call, so later resumes see it answered. */
  abandon(streamId: string, message: JSONRPCMessage): Promise<string | undefined>;
  /** A reader for one follower (in Redis, a connection of its own that may block). */
  openReader(): Promise<EventReader>;
  close(): Promise<void>;
}

/** How long Redis keeps a response the SDK's path delivered live (the process forgets it once its stream ended). */
export const DELIVERED_GRACE_MS = 10_000;
/** Events kept per stream at most (our calls send a handful of progress events). */
export const MAX_EVENTS_PER_STREAM = 1000;

/** Event ids are `<stream id>_<position>`: the stream id is the SDK's UUID, the position the store's. */
const EVENT_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_(\d{1,20}(?:-\d{1,20})?)$/;

export function formatEventId(streamId: string, position: string): string {
  return `${streamId}_${position}`;
}

export function splitEventId(eventId: string): { streamId: string; position: string } | undefined {
  if (eventId.length > 100) return undefined;
  const match = EVENT_ID.exec(eventId);
  return match ? { streamId: match[1]!, position: match[2]! } : undefined;
}

/** Whether `message` is the response (result or error) to the request `requestId`. */
export function isResponseTo(message: unknown, requestId: string | number): boolean {
  const m = message as { id?: unknown; result?: unknown; error?: unknown };
  return m.id === requestId && (m.result !== undefined || m.error !== undefined);
}

/** The answer a follower gives when the call's replica stopped before storing a response. */
function abandonedCallError(requestId: string | number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: requestId,
    error: {
      code: -32000,
      message:
        'The server running this call stopped before answering (or the call was cancelled): a write it ' +
        'made may or may not have been applied. Check before retrying a write; a read can be retried.',
      data: { classification: 'UNAVAILABLE', retryable: true },
    },
  };
}

/** How long a follower waits for an event before it checks that the call's lease is still held. */
const POLL_MS = 1000;

export interface StreamSink {
  /** Called once, before the first event, unless the stream turns out complete already. */
  open(): void;
  send(event: StoredEvent): void;
}

/**
 * Replays a stream's events after `after`, then keeps reading until the response to the stream's
 * request is sent, or the lease is gone with no response stored (then the abandoned-call error is
 * stored and sent), or `signal` aborts (the client went away). `complete`: the response was delivered
 * before `after` already, nothing is opened. Never waits on anything that could hang: every read is
 * bounded and a lease always expires.
 */
export async function followStream(
  store: ResumableEventStore,
  stream: { id: string; after: string; info: StoredStreamInfo },
  sink: StreamSink,
  signal: AbortSignal,
): Promise<'complete' | 'answered' | 'abandoned' | 'gone'> {
  const { id: streamId, info } = stream;
  const reader = await store.openReader();
  let cursor = stream.after;
  const deliver = (events: StoredEvent[]): boolean => {
    for (const event of events) {
      cursor = event.id.slice(event.id.indexOf('_') + 1);
      // The priming event (no message) only gave the client an id to resume from.
      if (!('jsonrpc' in event.message)) continue;
      sink.send(event);
      if (isResponseTo(event.message, info.requestId)) return true;
    }
    return false;
  };
  try {
    const backlog = await reader.read(streamId, cursor, 0);
    if (info.answered && !backlog.some((event) => isResponseTo(event.message, info.requestId)))
      return 'complete';
    sink.open();
    if (deliver(backlog)) return 'answered';
    for (;;) {
      if (signal.aborted) return 'gone';
      const events = await reader.read(streamId, cursor, POLL_MS);
      if (signal.aborted) return 'gone';
      if (deliver(events)) return 'answered';
      if (events.length > 0 || (await store.leaseHeld(streamId))) continue;
      // The response is stored before the lease is given up: read once more before concluding.
      if (deliver(await reader.read(streamId, cursor, 0))) return 'answered';
      const message = abandonedCallError(info.requestId);
      const id = await store.abandon(streamId, message);
      sink.send({ id: id ?? '', message });
      return 'abandoned';
    }
  } finally {
    await reader.close();
  }
}
