/**
 * Resumable streams in Redis Streams (REDIS_URL), so a cut stream resumes on any replica:
 *
 * - `<prefix>:mcp:e:{<stream>}`: the events (XADD, capped with MAXLEN ~), event id `<stream>_<entry id>`.
 * - `<prefix>:mcp:em:{<stream>}`: what the stream answers (session, request id, method; `a` once answered).
 * - `<prefix>:mcp:l:{<stream>}`: the lease of the replica running the call, PX 3 s renewed every second,
 *   deleted in the same transaction that stores the response.
 *
 * The stream id is the keys' hash tag: a stream's keys share a slot (a transaction on them is Redis
 * Cluster safe), and different streams spread over the slots.
 *
 * Both keys expire MCP_RESUME_WINDOW_SECONDS after the last event (a response the client read live
 * only DELIVERED_GRACE_MS after it: a short expiry set with the response costs no round trip, where
 * deleting the keys once the live stream ended would cost one). A lean call (forLeanCall) writes its
 * record and lease when it starts and, at its end, either its response (the client went away) or a
 * delete (the response went out live): two round trips as before, neither awaited on the call's path. A follower reads with XREAD BLOCK on a connection of its own,
 * without the shared connection's short command timeout, and never more than MAX_FOLLOWERS at once.
 * Storing never fails a call: if Redis fails, the event still goes out on the live stream (it just
 * cannot be resumed).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import {
  DELIVERED_GRACE_MS,
  formatEventId,
  isResponseTo,
  MAX_EVENTS_PER_STREAM,
  splitEventId,
  type ResumableEventStore,
  type StoredEvent,
  type StreamInfo,
} from './event-store.js';
import type { RedisConnection } from './redis-connection.js';
import { HEARTBEAT_MS } from './redis-session-store.js';

const LEASE_MS = 3000;
/** Followers reading at once on this replica (each holds a Redis connection). */
const MAX_FOLLOWERS = 256;
/** A follower blocks at most a second per read: past this its connection is taken for stalled. */
const FOLLOWER_COMMAND_TIMEOUT_MS = 3000;

type Entry = [id: string, fields: string[]];

function toEvents(streamId: string, entries: Entry[] | null | undefined): StoredEvent[] {
  return (entries ?? []).map(([id, fields]) => ({
    id: formatEventId(streamId, id),
    message: JSON.parse(fields[fields.indexOf('m') + 1] ?? '{}') as JSONRPCMessage,
  }));
}

/** What a stream answers, as its `em` hash holds it. */
const record = (info: StreamInfo) => ({
  s: info.sessionId,
  r: JSON.stringify(info.requestId),
  n: info.method,
});

export interface RedisEventStoreOptions {
  redis: Pick<RedisConnection, 'client' | 'namespace' | 'replicaId' | 'duplicate'>;
  retentionMs: number;
  logger: Logger;
}

export function createRedisEventStore(options: RedisEventStoreOptions): ResumableEventStore {
  const { client, replicaId } = options.redis;
  const { retentionMs, logger } = options;
  const key = (kind: 'e' | 'em' | 'l', streamId: string) =>
    `${options.redis.namespace}:mcp:${kind}:{${streamId}}`;
  /** Streams whose call runs here: their leases are renewed every heartbeat. */
  const leases = new Set<string>();
  let followers = 0;

  const heartbeat = setInterval(() => {
    if (leases.size === 0) return;
    const pipeline = client.pipeline();
    for (const streamId of leases) pipeline.pexpire(key('l', streamId), LEASE_MS);
    pipeline.exec().catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const giveUpLease = (streamId: string) => {
    if (!leases.delete(streamId)) return;
    client.del(key('l', streamId)).catch(() => undefined);
  };

  /** Runs a transaction whose first command is an XADD; resolves with the event id, or `0-0` if it failed. */
  const exec = async (streamId: string, multi: ReturnType<Redis['multi']>): Promise<string> => {
    try {
      const results = await multi.exec();
      const [error, entryId] = results?.[0] ?? [new Error('transaction discarded')];
      if (error) throw error;
      return formatEventId(streamId, entryId as string);
    } catch (error) {
      logger.warn({ err: error, streamId }, 'an MCP stream event could not be stored in Redis');
      // Still delivered live; a resume from here replays the whole stream.
      return formatEventId(streamId, '0-0');
    }
  };

  /**
   * Appends a call's response, marks the stream answered (with what it answers, when this is its first
   * event) and gives the lease up, in one transaction.
   */
  const storeResponse = (streamId: string, json: string, ttl: number, info?: StreamInfo) => {
    leases.delete(streamId);
    return client
      .multi()
      .xadd(key('e', streamId), 'MAXLEN', '~', MAX_EVENTS_PER_STREAM, '*', 'm', json)
      .hset(key('em', streamId), { ...(info ? record(info) : {}), a: '1' })
      .del(key('l', streamId))
      .pexpire(key('e', streamId), ttl)
      .pexpire(key('em', streamId), ttl);
  };

  return {
    forCall(info, attached) {
      let current: string | undefined;
      return {
        async storeEvent(streamId, message) {
          const first = current === undefined;
          current = streamId;
          const json = JSON.stringify(message);
          if (isResponseTo(message, info.requestId)) {
            const ttl = attached() ? Math.min(DELIVERED_GRACE_MS, retentionMs) : retentionMs;
            return exec(streamId, storeResponse(streamId, json, ttl, first ? info : undefined));
          }
          const multi = client
            .multi()
            .xadd(key('e', streamId), 'MAXLEN', '~', MAX_EVENTS_PER_STREAM, '*', 'm', json);
          if (first) {
            leases.add(streamId);
            multi.hset(key('em', streamId), record(info)).set(key('l', streamId), replicaId, 'PX', LEASE_MS);
          }
          multi.pexpire(key('e', streamId), retentionMs).pexpire(key('em', streamId), retentionMs);
          return exec(streamId, multi);
        },
        async replayEventsAfter(lastEventId, { send }) {
          const parsed = splitEventId(lastEventId);
          if (!parsed) throw new Error('unknown event id');
          const entries = (await client.xrange(
            key('e', parsed.streamId),
            `(${parsed.position}`,
            '+',
          )) as Entry[];
          for (const event of toEvents(parsed.streamId, entries)) await send(event.id, event.message);
          return parsed.streamId;
        },
        finish() {
          if (current !== undefined) giveUpLease(current);
        },
        // The response's short expiry does it (a delete would cost a round trip).
        forget() {},
      };
    },
    forLeanCall(info) {
      const streamId = randomUUID();
      leases.add(streamId);
      client
        .multi()
        .hset(key('em', streamId), record(info))
        .set(key('l', streamId), replicaId, 'PX', LEASE_MS)
        .pexpire(key('em', streamId), retentionMs)
        .exec()
        .catch((error: unknown) =>
          logger.warn({ err: error, streamId }, 'an MCP call stream could not be registered in Redis'),
        );
      return {
        // Before any entry Redis gives an id (those are <ms>-<seq>): a resume from it replays everything.
        primingEventId: formatEventId(streamId, '0-1'),
        responseEventId: formatEventId(streamId, '0-2'),
        store(json) {
          void exec(streamId, storeResponse(streamId, json, retentionMs));
        },
        forget() {
          leases.delete(streamId);
          client.del(key('em', streamId), key('l', streamId)).catch(() => undefined);
        },
        finish() {
          giveUpLease(streamId);
        },
      };
    },
    parseEventId(eventId) {
      const parsed = splitEventId(eventId);
      return parsed && /^\d+-\d+$/.test(parsed.position) ? parsed : undefined;
    },
    async info(streamId) {
      const fields = await client.hgetall(key('em', streamId));
      if (fields.s === undefined || fields.r === undefined || fields.n === undefined) return undefined;
      const requestId = JSON.parse(fields.r) as unknown;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
      return { sessionId: fields.s, requestId, method: fields.n, answered: fields.a === '1' };
    },
    async leaseHeld(streamId) {
      return (await client.exists(key('l', streamId))) === 1;
    },
    async abandon(streamId, message) {
      try {
        const results = await client
          .multi()
          .xadd(key('e', streamId), 'MAXLEN', '~', MAX_EVENTS_PER_STREAM, '*', 'm', JSON.stringify(message))
          .hset(key('em', streamId), 'a', '1')
          .pexpire(key('e', streamId), retentionMs)
          .pexpire(key('em', streamId), retentionMs)
          .exec();
        const entryId = results?.[0]?.[1];
        return typeof entryId === 'string' ? formatEventId(streamId, entryId) : undefined;
      } catch {
        return undefined;
      }
    },
    async openReader() {
      if (followers >= MAX_FOLLOWERS) throw new Error('too many streams are being resumed on this replica');
      followers += 1;
      const connection = options.redis.duplicate('read', { commandTimeout: FOLLOWER_COMMAND_TIMEOUT_MS });
      connection.on('error', () => undefined);
      try {
        await connection.connect();
      } catch (error) {
        followers -= 1;
        connection.disconnect();
        throw error;
      }
      return {
        async read(streamId, after, waitMs) {
          if (waitMs === 0) {
            const entries = (await connection.xrange(key('e', streamId), `(${after}`, '+')) as Entry[];
            return toEvents(streamId, entries);
          }
          const reply = (await connection.xread(
            'COUNT',
            MAX_EVENTS_PER_STREAM,
            'BLOCK',
            waitMs,
            'STREAMS',
            key('e', streamId),
            after,
          )) as [string, Entry[]][] | null;
          return toEvents(streamId, reply?.[0]?.[1]);
        },
        async close() {
          followers -= 1;
          connection.disconnect();
        },
      };
    },
    async close() {
      clearInterval(heartbeat);
      // A call still running here gives its lease up as it ends; a replica that stops lets them expire.
      leases.clear();
    },
  };
}
