/**
 * Sessions in Redis (REDIS_URL), shared by every replica using it under REDIS_KEY_PREFIX:
 *
 * - `<prefix>:mcp:s:<id>`: a hash per session (owner, principal, revision, client capabilities and info,
 *   created, last use, and one busy count per replica `b:<replica>`), expiring MCP_SESSION_IDLE_SECONDS
 *   after its last use: idle sessions expire in Redis by themselves.
 * - `<prefix>:mcp:sp:<principal>` and `<prefix>:mcp:sa`: sorted sets of session ids by last use, per
 *   principal and in total, for the caps. An expired session's id lingers there until the next open
 *   prunes it (its score is older than the idle window, so only those are checked).
 * - `<prefix>:mcp:r:<replica>`: this replica is alive (refreshed every second). A busy count only counts
 *   while its replica's key exists, so a replica that crashed with requests in flight pins no session.
 *
 * The cap, evict or refuse decision is one Lua script, atomic across replicas; finding, checking the
 * owner, touching and holding a session is one more (one round trip per request). While a request holds
 * a session this replica renews its TTL every second, so a busy session never expires.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RedisBus } from './redis-bus.js';
import {
  capFor,
  SessionStateUnavailable,
  type Refusal,
  type SessionCaps,
  type SessionHold,
  type SessionRecord,
  type SessionStore,
} from './session-store.js';

/** How often this replica says it is alive and renews what it holds. */
export const HEARTBEAT_MS = 1000;
/** A replica silent for this long is taken for dead: its busy counts no longer count. */
const REPLICA_TTL_MS = 5000;
/** A held session's TTL runs this much past the idle timeout, so a late heartbeat never loses it. */
const HOLD_MARGIN_MS = 5000;

const PRELUDE = `
local P = ARGV[1]
local clock = redis.call('TIME')
-- Microseconds as a fraction of a millisecond: two uses in one millisecond still order by recency.
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local function skey(id) return P .. 'mcp:s:' .. id end
local function busy(id)
  local fields = redis.call('HGETALL', skey(id))
  for i = 1, #fields, 2 do
    local f = fields[i]
    if string.sub(f, 1, 2) == 'b:' and tonumber(fields[i + 1]) > 0
      and redis.call('EXISTS', P .. 'mcp:r:' .. string.sub(f, 3)) == 1 then
      return true
    end
  end
  return false
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

/** ARGV: prefix, id, principal, principal cap, global cap, idle ms, replica, owner, version, caps, info. */
const OPEN = `${PRELUDE}
local id, principal, idle, replica = ARGV[2], ARGV[3], tonumber(ARGV[6]), ARGV[7]
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
  't', now, 'b:' .. replica, 1)
touch(id, principal)
redis.call('PEXPIRE', skey(id), idle + ${HOLD_MARGIN_MS})
redis.call('SET', P .. 'mcp:r:' .. replica, 1, 'PX', ${REPLICA_TTL_MS})
return 'ok'
`;

/** ARGV: prefix, id, owner, idle ms, replica. Returns false, or principal, version, capabilities, info. */
const USE = `${PRELUDE}
local id, replica = ARGV[2], ARGV[5]
local h = redis.call('HMGET', skey(id), 'o', 'p', 'v', 'c', 'i')
if not h[1] or h[1] ~= ARGV[3] then return false end
touch(id, h[2])
redis.call('HINCRBY', skey(id), 'b:' .. replica, 1)
redis.call('PEXPIRE', skey(id), tonumber(ARGV[4]) + ${HOLD_MARGIN_MS})
redis.call('SET', P .. 'mcp:r:' .. replica, 1, 'PX', ${REPLICA_TTL_MS})
return { h[2], h[3], h[4], h[5] }
`;

/** ARGV: prefix, id, replica, idle ms. */
const RELEASE = `${PRELUDE}
local id, replica = ARGV[2], ARGV[3]
if redis.call('EXISTS', skey(id)) == 0 then return 0 end
if redis.call('HINCRBY', skey(id), 'b:' .. replica, -1) <= 0 then redis.call('HDEL', skey(id), 'b:' .. replica) end
touch(id, redis.call('HGET', skey(id), 'p'))
local idle = tonumber(ARGV[4])
if busy(id) then idle = idle + ${HOLD_MARGIN_MS} end
redis.call('PEXPIRE', skey(id), idle)
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
  /** This process, as busy counts and leases name it. */
  replicaId: string;
  logger: Logger;
}

export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { client, bus, replicaId, logger } = options;
  const prefix = `${options.namespace}:`;
  const closedChannel = `${prefix}mcp:closed`;
  const scripts: Record<string, Script> = {};
  for (const [name, lua] of Object.entries({ OPEN, USE, RELEASE, DELETE })) {
    const command = `mcpSession${name}`;
    client.defineCommand(command, { numberOfKeys: 0, lua });
    scripts[name] = (...args) =>
      (client as unknown as Record<string, Script>)[command]!(prefix, ...args).catch((error: unknown) => {
        throw new SessionStateUnavailable(error);
      });
  }
  const run = (name: 'OPEN' | 'USE' | 'RELEASE' | 'DELETE', ...args: (string | number)[]) =>
    scripts[name]!(...args);

  /** Sessions this replica holds, with how many holds each: renewed every heartbeat. */
  const held = new Map<string, number>();
  const listeners: ((id: string) => void)[] = [];
  bus.subscribe(closedChannel, (id) => listeners.forEach((listener) => listener(id)));

  const heartbeat = setInterval(() => {
    if (held.size === 0) return;
    const pipeline = client.pipeline().set(`${prefix}mcp:r:${replicaId}`, 1, 'PX', REPLICA_TTL_MS);
    for (const id of held.keys()) pipeline.pexpire(`${prefix}mcp:s:${id}`, options.idleMs + HOLD_MARGIN_MS);
    pipeline.exec().catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const holdOn = (id: string): SessionHold => {
    held.set(id, (held.get(id) ?? 0) + 1);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const count = (held.get(id) ?? 1) - 1;
        if (count > 0) held.set(id, count);
        else held.delete(id);
        // Not waited for: the answer is already out. If it fails, the session still expires by its TTL.
        run('RELEASE', id, replicaId, options.idleMs).catch((error: unknown) =>
          logger.debug({ err: error, sessionId: id }, 'releasing an MCP session in Redis failed'),
        );
      },
    };
  };

  return {
    async open(record) {
      const outcome = await run(
        'OPEN',
        record.id,
        record.principal,
        capFor(record.principal, options),
        options.maxSessions,
        options.idleMs,
        replicaId,
        encodeOwner(record.owner),
        record.protocolVersion,
        JSON.stringify(record.clientCapabilities),
        JSON.stringify(record.clientInfo),
      );
      if (outcome !== 'ok') return { refusal: outcome as Refusal };
      return { hold: holdOn(record.id) };
    },
    async use(id, subject) {
      const found = (await run('USE', id, encodeOwner(subject), options.idleMs, replicaId)) as
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
      return { record, hold: holdOn(id) };
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
