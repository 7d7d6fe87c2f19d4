/**
 * Sessions in Redis (REDIS_URL), shared by every replica using it under REDIS_KEY_PREFIX:
 *
 * - `<prefix>:mcp:s:<id>`: a hash per session (owner, principal, revision, client capabilities and info,
 *   created, last use, and one lease per request holding it, `l:<hold>` = the Redis time it lapses at),
 *   expiring MCP_SESSION_IDLE_SECONDS after its last use: idle sessions expire in Redis by themselves.
 * - `<prefix>:mcp:sp:<principal>` and `<prefix>:mcp:sa`: sorted sets of session ids by last use, per
 *   principal and in total, for the caps. An expired session's id lingers there until the next open
 *   prunes it (its score is older than the idle window, so only those are checked).
 *
 * A session is busy while one of its leases has not lapsed. Every second this replica renews the
 * leases (and the TTLs) of the holds whose requests are live, and releases those whose requests are not
 * (a request that closed without releasing). A lease nobody renews lapses LEASE_MS after it was last
 * renewed: its replica crashed, or a stall delivered the command that took it after the request had
 * given up waiting (the command timed out here, Redis ran it later). So no crash, stall or lost release
 * pins a session for longer than that.
 *
 * The cap, evict or refuse decision is one Lua script, atomic across replicas; finding, checking the
 * owner, touching and holding a session is one more (one round trip per request).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RedisBus } from './redis-bus.js';
import {
  capFor,
  SessionStateUnavailable,
  type IsLive,
  type Refusal,
  type SessionCaps,
  type SessionHold,
  type SessionRecord,
  type SessionStore,
} from './session-store.js';

/** How often this replica renews the leases of live requests and returns those of closed ones. */
export const HEARTBEAT_MS = 1000;
/** A lease not renewed for this long lapses: its session is no longer busy. */
export const LEASE_MS = 5000;
/** A held session's TTL runs this much past the idle timeout, so a late heartbeat never loses it. */
const HOLD_MARGIN_MS = 5000;

const PRELUDE = `
local P = ARGV[1]
local clock = redis.call('TIME')
-- Microseconds as a fraction of a millisecond: two uses in one millisecond still order by recency.
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local function skey(id) return P .. 'mcp:s:' .. id end
-- Busy while a lease has not lapsed; lapsed ones are dropped on the way.
local function busy(id)
  local fields = redis.call('HGETALL', skey(id))
  local held = false
  for i = 1, #fields, 2 do
    local f = fields[i]
    if string.sub(f, 1, 2) == 'l:' then
      if tonumber(fields[i + 1]) > now then held = true else redis.call('HDEL', skey(id), f) end
    end
  end
  return held
end
local function drop(id)
  local principal = redis.call('HGET', skey(id), 'p')
  redis.call('DEL', skey(id))
  if principal then redis.call('ZREM', P .. 'mcp:sp:' .. principal, id) end
  redis.call('ZREM', P .. 'mcp:sa', id)
end
local function touch(id, principal)
  redis.call('HSET', skey(id), 'u', now)
  redis.call('ZADD', P .. 'mcp:sp:' .. principal, now, id)
  redis.call('ZADD', P .. 'mcp:sa', now, id)
end
`;

/** ARGV: prefix, id, principal, principal cap, global cap, idle ms, hold, owner, version, caps, info. */
const OPEN = `${PRELUDE}
local id, principal, idle, hold = ARGV[2], ARGV[3], tonumber(ARGV[6]), ARGV[7]
local pset, aset = P .. 'mcp:sp:' .. principal, P .. 'mcp:sa'
for _, set in ipairs({ pset, aset }) do
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', now - idle)) do
    if redis.call('EXISTS', skey(member)) == 0 then redis.call('ZREM', set, member) end
  end
end
local function evict(set)
  for _, member in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if not busy(member) then drop(member); return true end
  end
  return false
end
if redis.call('ZCARD', pset) >= tonumber(ARGV[4]) and not evict(pset) then return 'principal-cap' end
if redis.call('ZCARD', aset) >= tonumber(ARGV[5]) and not evict(aset) then return 'full' end
redis.call('HSET', skey(id), 'o', ARGV[8], 'p', principal, 'v', ARGV[9], 'c', ARGV[10], 'i', ARGV[11],
  't', now, 'l:' .. hold, now + ${LEASE_MS})
touch(id, principal)
redis.call('PEXPIRE', skey(id), idle + ${HOLD_MARGIN_MS})
return 'ok'
`;

/** ARGV: prefix, id, owner, idle ms, hold. Returns false, or principal, version, capabilities, info. */
const USE = `${PRELUDE}
local id, hold = ARGV[2], ARGV[5]
local h = redis.call('HMGET', skey(id), 'o', 'p', 'v', 'c', 'i')
if not h[1] or h[1] ~= ARGV[3] then return false end
touch(id, h[2])
redis.call('HSET', skey(id), 'l:' .. hold, now + ${LEASE_MS})
redis.call('PEXPIRE', skey(id), tonumber(ARGV[4]) + ${HOLD_MARGIN_MS})
return { h[2], h[3], h[4], h[5] }
`;

/** ARGV: prefix, id, hold, idle ms. */
const RELEASE = `${PRELUDE}
local id, hold = ARGV[2], ARGV[3]
if redis.call('EXISTS', skey(id)) == 0 then return 0 end
redis.call('HDEL', skey(id), 'l:' .. hold)
touch(id, redis.call('HGET', skey(id), 'p'))
local idle = tonumber(ARGV[4])
if busy(id) then idle = idle + ${HOLD_MARGIN_MS} end
redis.call('PEXPIRE', skey(id), idle)
return 1
`;

/**
 * ARGV: prefix, idle ms, then a session id and a hold per lease to renew. A lease already gone
 * (released, its session ended) stays gone.
 */
const RENEW = `${PRELUDE}
local idle = tonumber(ARGV[2])
for i = 3, #ARGV, 2 do
  local id, field = ARGV[i], 'l:' .. ARGV[i + 1]
  if redis.call('HEXISTS', skey(id), field) == 1 then
    redis.call('HSET', skey(id), field, now + ${LEASE_MS})
    redis.call('PEXPIRE', skey(id), idle + ${HOLD_MARGIN_MS})
  end
end
return 1
`;

/** ARGV: prefix, id, owner or '*' for any, channel. Publishes the id on the channel when it ended one. */
const DELETE = `${PRELUDE}
local owner = redis.call('HGET', skey(ARGV[2]), 'o')
if not owner or (ARGV[3] ~= '*' and owner ~= ARGV[3]) then return 0 end
drop(ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

/** Owners as stored: anonymous is `-`, a subject `s:<subject>` (so no subject can pose as anonymous). */
const encodeOwner = (subject: string | null) => (subject === null ? '-' : `s:${subject}`);

export interface RedisSessionStoreOptions extends SessionCaps {
  client: Redis;
  bus: RedisBus;
  namespace: string;
  /** This process, as its leases name it. */
  replicaId: string;
  logger: Logger;
}

export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client, bus, replicaId, logger } = options;
  const prefix = `${options.namespace}:`;
  const closedChannel = `${prefix}mcp:closed`;
  const scripts: Record<string, Script> = {};
  for (const [name, lua] of Object.entries({ OPEN, USE, RELEASE, RENEW, DELETE })) {
    const command = `mcpSession${name}`;
    client.defineCommand(command, { numberOfKeys: 0, lua });
    scripts[name] = (...args) =>
      (client as unknown as Record<string, Script>)[command]!(prefix, ...args).catch((error: unknown) => {
        throw new SessionStateUnavailable(error);
      });
  }
  const run = (name: 'OPEN' | 'USE' | 'RELEASE' | 'RENEW' | 'DELETE', ...args: (string | number)[]) =>
    scripts[name]!(...args);

  interface Lease extends SessionHold {
    sessionId: string;
    live: IsLive;
  }
  /** The leases this replica holds, by hold id: renewed every heartbeat while their requests are live. */
  const leases = new Map<string, Lease>();
  let holds = 0;
  const nextHoldId = () => `${replicaId}.${(holds += 1).toString(36)}`;
  const listeners: ((id: string) => void)[] = [];
  bus.subscribe(closedChannel, (id) => listeners.forEach((listener) => listener(id)));

  const heartbeat = setInterval(() => {
    const renew: string[] = [];
    for (const [holdId, lease] of leases) {
      // The reconciliation: a request that closed without releasing gives its session back here.
      if (!lease.live()) lease.release();
      else renew.push(lease.sessionId, holdId);
    }
    if (renew.length > 0) run('RENEW', options.idleMs, ...renew).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  /** The hold on a lease the store took under `holdId` (only once Redis said it took it). */
  const holdOn = (sessionId: string, holdId: string, live: IsLive): SessionHold => {
    let released = false;
    const lease: Lease = {
      sessionId,
      live,
      release() {
        if (released) return;
        released = true;
        leases.delete(holdId);
        // Not waited for: the answer is already out. If it fails, the lease lapses unrenewed.
        run('RELEASE', sessionId, holdId, options.idleMs).catch((error: unknown) =>
          logger.debug({ err: error, sessionId }, 'releasing an MCP session in Redis failed'),
        );
      },
    };
    leases.set(holdId, lease);
    return lease;
  };
  const always: IsLive = () => true;

  return {
    async open(record, live = always) {
      const holdId = nextHoldId();
      const outcome = await run(
        'OPEN',
        record.id,
        record.principal,
        capFor(record.principal, options),
        options.maxSessions,
        options.idleMs,
        holdId,
        encodeOwner(record.owner),
        record.protocolVersion,
        JSON.stringify(record.clientCapabilities),
        JSON.stringify(record.clientInfo),
      );
      if (outcome !== 'ok') return { refusal: outcome as Refusal };
      return { hold: holdOn(record.id, holdId, live) };
    },
    async use(id, subject, live = always) {
      const holdId = nextHoldId();
      const found = (await run('USE', id, encodeOwner(subject), options.idleMs, holdId)) as
        [string, string, string, string] | null;
      if (!found) return undefined;
      const [principal, protocolVersion, capabilities, info] = found;
      const record: SessionRecord = {
        id,
        owner: subject,
        principal,
        protocolVersion,
        clientCapabilities: JSON.parse(capabilities) as Record<string, unknown>,
        clientInfo: JSON.parse(info) as Record<string, unknown>,
      };
      return { record, hold: holdOn(id, holdId, live) };
    },
    async delete(id, subject) {
      return (await run('DELETE', id, encodeOwner(subject), closedChannel)) === 1;
    },
    async discard(id) {
      await run('DELETE', id, '*', closedChannel);
    },
    onClosed(listener) {
      listeners.push(listener);
    },
    async close() {
      // The sessions stay in Redis: the other replicas go on serving them.
      clearInterval(heartbeat);
    },
  };
}
