/**
 * The resumable event store's contract (src/shared-state/event-store.ts), the same cases on the
 * in-process store and on Redis Streams: what a stream answers, its events replayed in order after any
 * of their ids, the lease while its call runs, a follower waiting for the next event, the abandoned-call
 * answer once the lease is given up without a response, and a lean call's stream.
 */
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  followStream,
  type ResumableEventStore,
  type StoredEvent,
} from '../../src/shared-state/event-store.js';
import { createMemoryEventStore } from '../../src/shared-state/memory-event-store.js';
import { createRedisEventStore } from '../../src/shared-state/redis-event-store.js';
import { implementations } from '../helpers/shared-state.js';

const RETENTION_MS = 60_000;
const stores = implementations<ResumableEventStore>(
  () => createMemoryEventStore(RETENTION_MS),
  (redis) => createRedisEventStore({ redis, retentionMs: RETENTION_MS, logger: createLogger('silent') }),
);

const progress = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});
const response = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [] } });
const info = (requestId: number) => ({ sessionId: 'session-1', requestId, method: 'tools/call' });

/** Replays a call's stream after `lastEventId` through the SDK's interface, as a resume does. */
async function replay(store: ResumableEventStore, lastEventId: string, requestId: number) {
  const sent: { id: string; message: JSONRPCMessage }[] = [];
  await store
    .forCall(info(requestId), () => false)
    .replayEventsAfter(lastEventId, {
      send: async (id, message) => void sent.push({ id, message }),
    });
  return sent;
}

describe.each(stores)('the resumable event store (%s)', (_name, create) => {
  it('stores a call stream: what it answers, its events in order after any id, the lease until the response', async () => {
    const { value: store, close } = await create();
    try {
      const streamId = randomUUID();
      const call = store.forCall(info(7), () => false);
      const ids = [
        await call.storeEvent(streamId, progress(1)),
        await call.storeEvent(streamId, progress(2)),
      ];
      expect(await store.info(streamId)).toEqual({ ...info(7), answered: false });
      expect(await store.leaseHeld(streamId)).toBe(true);
      ids.push(await call.storeEvent(streamId, response(7)));
      expect(await store.info(streamId)).toEqual({ ...info(7), answered: true });
      expect(await store.leaseHeld(streamId)).toBe(false);

      for (const id of ids) expect(store.parseEventId(id)).toMatchObject({ streamId });
      expect(store.parseEventId('not-an-event-id')).toBeUndefined();
      expect(store.parseEventId(`${randomUUID()}_x`)).toBeUndefined();
      expect(await replay(store, ids[0]!, 7)).toEqual([
        { id: ids[1], message: progress(2) },
        { id: ids[2], message: response(7) },
      ]);
      expect(await replay(store, ids[2]!, 7)).toEqual([]);
      expect(await store.info(randomUUID())).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('a follower waits for the next event and replays from its cursor', async () => {
    const { value: store, close } = await create();
    try {
      const streamId = randomUUID();
      const call = store.forCall(info(8), () => false);
      const first = store.parseEventId(await call.storeEvent(streamId, progress(1)))!;
      const reader = await store.openReader();
      try {
        const waiting = reader.read(streamId, first.position, 5000);
        const second = await call.storeEvent(streamId, progress(2));
        expect(await waiting).toEqual([{ id: second, message: progress(2) }] satisfies StoredEvent[]);
        expect(await reader.read(streamId, '0', 0)).toHaveLength(2);
      } finally {
        await reader.close();
      }
    } finally {
      await close();
    }
  });

  it('a call that ends without a response gives its lease up: a follower answers the abandoned-call error, and the stream is answered from then on', async () => {
    const { value: store, close } = await create();
    try {
      const streamId = randomUUID();
      const call = store.forCall(info(9), () => false);
      const first = await call.storeEvent(streamId, progress(1));
      call.finish();
      expect(await store.leaseHeld(streamId)).toBe(false);
      const sent: StoredEvent[] = [];
      const outcome = await followStream(
        store,
        { id: streamId, after: store.parseEventId(first)!.position, info: (await store.info(streamId))! },
        { open: () => undefined, send: (event) => void sent.push(event) },
        new AbortController().signal,
      );
      expect(outcome).toBe('abandoned');
      expect(sent).toEqual([
        {
          id: expect.any(String),
          message: expect.objectContaining({ id: 9, error: expect.objectContaining({ code: -32000 }) }),
        },
      ]);
      expect(await store.info(streamId)).toMatchObject({ answered: true });
    } finally {
      await close();
    }
  });

  it('a lean call registers its stream at once; a stored response resumes from the priming id, a forgotten stream is gone', async () => {
    const { value: store, close } = await create();
    try {
      const stored = store.forLeanCall(info(10));
      const streamId = store.parseEventId(stored.primingEventId)!.streamId;
      expect(store.parseEventId(stored.responseEventId)).toMatchObject({ streamId });
      await expect.poll(() => store.info(streamId)).toEqual({ ...info(10), answered: false });
      expect(await store.leaseHeld(streamId)).toBe(true);
      stored.store(JSON.stringify(response(10)));
      await expect.poll(async () => (await store.info(streamId))?.answered).toBe(true);
      expect(await store.leaseHeld(streamId)).toBe(false);
      const reader = await store.openReader();
      try {
        const events = await reader.read(streamId, store.parseEventId(stored.primingEventId)!.position, 0);
        expect(events.map((event) => event.message)).toEqual([response(10)]);
      } finally {
        await reader.close();
      }

      const forgotten = store.forLeanCall(info(11));
      const forgottenId = store.parseEventId(forgotten.primingEventId)!.streamId;
      await expect.poll(() => store.leaseHeld(forgottenId)).toBe(true);
      forgotten.forget();
      await expect.poll(() => store.info(forgottenId)).toBeUndefined();
      expect(await store.leaseHeld(forgottenId)).toBe(false);
    } finally {
      await close();
    }
  });
});
