/**
 * Resumable streams kept by this process (no REDIS_URL): a client whose stream was cut resumes on the
 * same server. Bounded four ways: streams and their total size (least recently written dropped first),
 * events per stream (oldest dropped first), and time (a stream is forgotten MCP_RESUME_WINDOW_SECONDS
 * after its last event, and at once when its live stream ended normally: it was not cut, so nothing of
 * it will be asked for, and a call keeps nothing behind). Events are kept as JSON text, several times
 * smaller than the objects, and replay in the order they were stored (the SDK's example store does not).
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import {
  formatEventId,
  isResponseTo,
  MAX_EVENTS_PER_STREAM,
  splitEventId,
  type ResumableEventStore,
  type StoredEvent,
  type StreamInfo,
} from './event-store.js';

interface Stream {
  info: StreamInfo;
  events: { seq: number; json: string }[];
  /** Characters of JSON held. */
  size: number;
  next: number;
  leased: boolean;
  answered: boolean;
  /** Followers waiting for the next event. */
  waiters: Set<() => void>;
}

const MAX_STREAMS = 10_000;
/** Characters of stored JSON across all streams (one-byte strings: about as many bytes). */
const MAX_TOTAL_SIZE = 32 * 1024 * 1024;

export function createMemoryEventStore(retentionMs: number): ResumableEventStore {
  const streams = new LRUCache<string, Stream>({
    max: MAX_STREAMS,
    maxSize: MAX_TOTAL_SIZE,
    sizeCalculation: (stream) => Math.max(1, stream.size),
    ttl: retentionMs,
  });

  /**
   * Lean calls' streams while their call runs: kept out of the LRU until they have something to keep
   * (lru-cache clears every slot, O(max), when its last entry is deleted: once per call otherwise).
   */
  const running = new Map<string, Stream>();
  const find = (streamId: string) => running.get(streamId) ?? streams.get(streamId);

  const wakeAll = (stream: Stream) => [...stream.waiters].forEach((wake) => wake());

  const newStream = (info: StreamInfo, next = 1): Stream => ({
    info,
    events: [],
    size: 0,
    next,
    leased: true,
    answered: false,
    waiters: new Set<() => void>(),
  });

  const append = (streamId: string, stream: Stream, json: string) => {
    const seq = stream.next++;
    stream.events.push({ seq, json });
    stream.size += json.length;
    if (stream.events.length > MAX_EVENTS_PER_STREAM) stream.size -= stream.events.shift()!.json.length;
    streams.set(streamId, stream);
    wakeAll(stream);
    return formatEventId(streamId, String(seq));
  };

  /** Stores a call's response: the stream is answered and its lease given up. */
  const answer = (streamId: string, stream: Stream, json: string) => {
    stream.leased = false;
    stream.answered = true;
    return append(streamId, stream, json);
  };

  const forget = (streamId: string, stream: Stream) => {
    if (streams.get(streamId) === stream) streams.delete(streamId);
    wakeAll(stream);
  };

  const eventsAfter = (streamId: string, after: number): StoredEvent[] =>
    (find(streamId)?.events ?? [])
      .filter((event) => event.seq > after)
      .map((event) => ({
        id: formatEventId(streamId, String(event.seq)),
        message: JSON.parse(event.json) as JSONRPCMessage,
      }));

  return {
    forCall(info) {
      let current: { id: string; stream: Stream } | undefined;
      return {
        async storeEvent(streamId, message) {
          // A stream dropped by the bounds while its call still runs starts again, with its info.
          const stream =
            streams.get(streamId) ??
            (current?.id === streamId ? current.stream : undefined) ??
            newStream(info);
          current = { id: streamId, stream };
          const json = JSON.stringify(message);
          if (!isResponseTo(message, info.requestId)) return append(streamId, stream, json);
          return answer(streamId, stream, json);
        },
        async replayEventsAfter(lastEventId, { send }) {
          const parsed = splitEventId(lastEventId);
          if (!parsed) throw new Error('unknown event id');
          for (const event of eventsAfter(parsed.streamId, Number(parsed.position)))
            await send(event.id, event.message);
          return parsed.streamId;
        },
        finish() {
          if (!current) return;
          current.stream.leased = false;
          wakeAll(current.stream);
        },
        forget() {
          if (current) forget(current.id, current.stream);
        },
      };
    },
    forLeanCall(info) {
      const streamId = randomUUID();
      // Position 1 is the priming event, which carries no message and is not stored.
      const stream = newStream(info, 2);
      running.set(streamId, stream);
      return {
        primingEventId: formatEventId(streamId, '1'),
        responseEventId: formatEventId(streamId, '2'),
        store(json) {
          running.delete(streamId);
          answer(streamId, stream, json);
        },
        forget() {
          running.delete(streamId);
          wakeAll(stream);
        },
        finish() {
          // Kept (bounded, expiring) so that a follower can answer the abandoned-call error.
          running.delete(streamId);
          stream.leased = false;
          streams.set(streamId, stream);
          wakeAll(stream);
        },
      };
    },
    parseEventId(eventId) {
      const parsed = splitEventId(eventId);
      return parsed && /^\d+$/.test(parsed.position) ? parsed : undefined;
    },
    async info(streamId) {
      const stream = find(streamId);
      return stream && { ...stream.info, answered: stream.answered };
    },
    async leaseHeld(streamId) {
      return find(streamId)?.leased ?? false;
    },
    async abandon(streamId, message) {
      const stream = find(streamId);
      if (!stream) return undefined;
      stream.answered = true;
      return append(streamId, stream, JSON.stringify(message));
    },
    async openReader() {
      return {
        async read(streamId, after, waitMs) {
          const events = eventsAfter(streamId, Number(after));
          const stream = find(streamId);
          if (events.length > 0 || waitMs === 0 || !stream || !stream.leased) return events;
          await new Promise<void>((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              stream.waiters.delete(wake);
              resolve();
            };
            const timer = setTimeout(wake, waitMs);
            stream.waiters.add(wake);
          });
          return eventsAfter(streamId, Number(after));
        },
        async close() {},
      };
    },
    async close() {
      running.clear();
      streams.clear();
    },
  };
}
