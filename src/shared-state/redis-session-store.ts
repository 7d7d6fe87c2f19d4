/**
 * Sessions in Redis (REDIS_URL), shared by every replica using it under REDIS_KEY_PREFIX:
 *
 * - `<prefix>:mcp:{<prefix>:sessions}:s:<id>`: a hash per session (owner, principal, revision, client capabilities and info,
 *   created, last use, and one lease per request holding it, `l:<hold>` = the Redis time it lapses at),
 *   expiring MCP_SESSION_IDLE_SECONDS after its last use: idle sessions expire in Redis by themselves.
 * - `...:sp:<principal>` and `...:sa` (under the same tag): sorted sets of session ids by last use, per
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
 * owner, touching and holding a session is one more (one round trip per request). Each script is given
 * in KEYS the keys its caller can name (the session, its principal's set, the set of all); the keys it
 * finds in the data (a session the caps evict, the principal set of a session it touches) share the
 * table's hash tag, so every key a script touches is in one slot.
 */
import type { Logger } from '../logger.js';
import type { RedisConnection } from './redis-connection.js';
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
const LEASE_MS = 5000;
/** A held session's TTL runs this much past the idle timeout, so a late heartbeat never loses it. */
const HOLD_MARGIN_MS = 5000;

const PRELUDE = `
local P = ARGV[1]
local clock = redis.call('TIME')
-- Microseconds as a fraction of a millisecond: two uses in one millisecond still order by recency.
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
-- Keys found in the data (a session the caps evict, a session's principal set), under the table's tag.
local function skey(id) return P .. 's:' .. id end
local function pkey(principal) return P .. 'sp:' .. principal end
-- Busy while a lease has not lapsed; lapsed ones are dropped on the way.
local function busy(key)
  local fields = redis.call('HGETALL', key)
  local held = false
  for i = 1, #fields, 2 do
    local f = fields[i]
    if string.sub(f, 1, 2) == 'l:' then
      if tonumber(fields[i + 1]) > now then held = true else redis.call('HDEL', key, f) end
    end
  end
  return held
end
local function drop(key, id, aset)
  local principal = redis.call('HGET', key, 'p')
  redis.call('DEL', key)
  if principal then redis.call('ZREM', pkey(principal), id) end
  redis.call('ZREM', aset, id)
end
local function touch(key, id, pset, aset)
  redis.call('HSET', key, 'u', now)
  redis.call('ZADD', pset, now, id)
  redis.call('ZADD', aset, now, id)
end
`;

/**
 * KEYS: the session, its principal's set, the set of all. ARGV: table prefix, id, principal, principal
 * cap, global cap, idle ms, hold, owner, version, caps, info.
 */
const OPEN = `${PRELUDE}
local key, pset, aset = KEYS[1], KEYS[2], KEYS[3]
local id, principal, idle, hold = ARGV[2], ARGV[3], tonumber(ARGV[6]), ARGV[7]
for _, set in ipairs({ pset, aset }) do
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', set, '-inf', now - idle)) do
    if redis.call('EXISTS', skey(member)) == 0 then redis.call('ZREM', set, member) end
  end
end
local function evict(set)
  for _, member in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if not busy(skey(member)) then drop(skey(member), member, aset); return true end
  end
  return false
end
if redis.call('ZCARD', pset) >= tonumber(ARGV[4]) and not evict(pset) then return 'principal-cap' end
if redis.call('ZCARD', aset) >= tonumber(ARGV[5]) and not evict(aset) then return 'full' end
redis.call('HSET', key, 'o', ARGV[8], 'p', principal, 'v', ARGV[9], 'c', ARGV[10], 'i', ARGV[11],
  't', now, 'l:' .. hold, now + ${LEASE_MS})
touch(key, id, pset, aset)
redis.call('PEXPIRE', key, idle + ${HOLD_MARGIN_MS})
return 'ok'
`;

/**
 * KEYS: the session, the set of all. ARGV: table prefix, id, owner, idle ms, hold. Returns false, or
 * principal, version, capabilities, info.
 */
const USE = `${PRELUDE}
local key, aset = KEYS[1], KEYS[2]
local id, hold = ARGV[2], ARGV[5]
local h = redis.call('HMGET', key, 'o', 'p', 'v', 'c', 'i')
if not h[1] or h[1] ~= ARGV[3] then return false end
touch(key, id, pkey(h[2]), aset)
redis.call('HSET', key, 'l:' .. hold, now + ${LEASE_MS})
redis.call('PEXPIRE', key, tonumber(ARGV[4]) + ${HOLD_MARGIN_MS})
return { h[2], h[3], h[4], h[5] }
`;

/** KEYS: the session, the set of all. ARGV: table prefix, id, hold, idle ms. */
const RELEASE = `${PRELUDE}
local key, aset = KEYS[1], KEYS[2]
local id, hold = ARGV[2], ARGV[3]
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HDEL', key, 'l:' .. hold)
touch(key, id, pkey(redis.call('HGET', key, 'p')), aset)
local idle = tonumber(ARGV[4])
if busy(key) then idle = idle + ${HOLD_MARGIN_MS} end
redis.call('PEXPIRE', key, idle)
return 1
`;

/**
 * KEYS: the session of each lease to renew. ARGV: table prefix, idle ms, then the lease's hold per key.
 * A lease already gone (released, its session ended) stays gone.
 */
const RENEW = `${PRELUDE}
local idle = tonumber(ARGV[2])
for i = 1, #KEYS do
  local key, field = KEYS[i], 'l:' .. ARGV[i + 2]
  if redis.call('HEXISTS', key, field) == 1 then
    redis.call('HSET', key, field, now + ${LEASE_MS})
    redis.call('PEXPIRE', key, idle + ${HOLD_MARGIN_MS})
  end
end
return 1
`;

/**
 * KEYS: the session, the set of all. ARGV: table prefix, id, owner or '*' for any, channel. Publishes
 * the id on the channel when it ended one.
 */
const DELETE = `${PRELUDE}
local key, aset = KEYS[1], KEYS[2]
local owner = redis.call('HGET', key, 'o')
if not owner or (ARGV[3] ~= '*' and owner ~= ARGV[3]) then return 0 end
drop(key, ARGV[2], aset)
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
`;

const LUA = { OPEN, USE, RELEASE, RENEW, DELETE };
type ScriptName = keyof typeof LUA;

type Script = (...args: (string | number)[]) => Promise<unknown>;

/** Owners as stored: anonymous is `-`, a subject `s:<subject>` (so no subject can pose as anonymous). */
const encodeOwner = (subject: string | null) => (subject === null ? '-' : `s:${subject}`);

export interface RedisSessionStoreOptions extends SessionCaps {
  redis: Pick<RedisConnection, 'client' | 'bus' | 'namespace' | 'replicaId'>;
  logger: Logger;
}

/**
 * The session table's keys. One hash tag for all of them: the caps are decided across every session of
 * the deployment at once, so the table lives in one slot (Redis Cluster runs a script only on keys of
 * one slot). Resumable streams, the bulk of what sessions store, spread across slots by stream.
 */
export function sessionKeys(namespace: string) {
  const table = `${namespace}:mcp:{${namespace}:sessions}:`;
  return {
    table,
    session: (id: string) => `${table}s:${id}`,
    principal: (principal: string) => `${table}sp:${principal}`,
    all: `${table}sa`,
  };
}

export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client, bus, replicaId } = options.redis;
  const { logger } = options;
  const keys = sessionKeys(options.redis.namespace);
  const closedChannel = bus.channelName('mcp:closed');
  const scripts = {} as Record<ScriptName, Script>;
  for (const [name, lua] of Object.entries(LUA) as [ScriptName, string][]) {
    const command = `mcpSession${name}`;
    // No numberOfKeys: every call says how many of its arguments are keys (RENEW's vary).
    client.defineCommand(command, { lua });
    scripts[name] = (client as unknown as Record<string, Script>)[command]!.bind(client);
  }
  const run = (name: ScriptName, scriptKeys: string[], ...args: (string | number)[]) =>
    scripts[name](scriptKeys.length, ...scriptKeys, keys.table, ...args).catch((error: unknown) => {
      throw new SessionStateUnavailable(error);
    });

  interface Lease extends SessionHold {
    sessionId: string;
    live: IsLive;
  }
  /** The leases this replica holds, by hold id: renewed every heartbeat while their requests are live. */
  const leases = new Map<string, Lease>();
  let holds = 0;
  const nextHoldId = () => `${replicaId}.${(holds += 1).toString(36)}`;
  const listeners: ((id: string) => void)[] = [];
  bus.subscribe('mcp:closed', (id) => listeners.forEach((listener) => listener(id)));

  const heartbeat = setInterval(() => {
    const renewed: string[] = [];
    const holdIds: string[] = [];
    for (const [holdId, lease] of leases) {
      // The reconciliation: a request that closed without releasing gives its session back here.
      if (!lease.live()) lease.release();
      else {
        renewed.push(keys.session(lease.sessionId));
        holdIds.push(holdId);
      }
    }
    if (renewed.length > 0) run('RENEW', renewed, options.idleMs, ...holdIds).catch(() => undefined);
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
        run('RELEASE', [keys.session(sessionId), keys.all], sessionId, holdId, options.idleMs).catch(
          (error: unknown) =>
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
        [keys.session(record.id), keys.principal(record.principal), keys.all],
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
      const found = (await run(
        'USE',
        [keys.session(id), keys.all],
        id,
        encodeOwner(subject),
        options.idleMs,
        holdId,
      )) as [string, string, string, string] | null;
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
      return (
        (await run('DELETE', [keys.session(id), keys.all], id, encodeOwner(subject), closedChannel)) === 1
      );
    },
    async discard(id) {
      await run('DELETE', [keys.session(id), keys.all], id, '*', closedChannel);
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
