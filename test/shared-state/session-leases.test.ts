/**
 * A session hold is a lease its request renews only while live: the store's reconciliation gives back
 * the hold of a request that closed without releasing it, on both stores (Redis when TEST_REDIS_URL is
 * set).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMemorySessionStore } from '../../src/shared-state/memory-session-store.js';
import { createRedisBus } from '../../src/shared-state/redis-bus.js';
import { createRedisSessionStore } from '../../src/shared-state/redis-session-store.js';
import type { SessionStore } from '../../src/shared-state/session-store.js';

const CAPS = { maxSessions: 10, maxPerUser: 1, maxPerAddress: 1, idleMs: 60_000 };
const redisUrl = process.env.TEST_REDIS_URL;

type StoreUnderTest = [string, () => { store: SessionStore; close(): Promise<void> }];
const stores: StoreUnderTest[] = [
  [
    'memory',
    () => {
      const store = createMemorySessionStore(CAPS, createLogger('silent'));
      return { store, close: () => store.close() };
    },
  ],
  ...(redisUrl
    ? ([
        [
          'redis',
          () => {
            const client = new Redis(redisUrl);
            const namespace = `moviedb-test-${randomBytes(6).toString('hex')}`;
            const logger = createLogger('silent');
            const bus = createRedisBus(client, logger);
            const store = createRedisSessionStore({
              ...CAPS,
              client,
              bus,
              namespace,
              replicaId: 'r1',
              logger,
            });
            return {
              store,
              async close() {
                await store.close();
                await bus.close();
                const keys = await client.keys(`${namespace}:*`);
                if (keys.length > 0) await client.del(...keys);
                client.disconnect();
              },
            };
          },
        ],
      ] satisfies StoreUnderTest[])
    : []),
];

const record = (id: string) => ({
  id,
  owner: null,
  principal: 'address:192.0.2.1',
  protocolVersion: '2025-11-25',
  clientCapabilities: {},
  clientInfo: { name: 't', version: '1' },
});

describe.each(stores)('session leases (%s store)', (_name, create) => {
  it('a hold whose request is no longer live is given back by the reconciliation, never while it is live', async () => {
    const { store, close } = create();
    try {
      const opened = await store.open(record('s1'));
      if (!('hold' in opened)) throw new Error('refused');
      opened.hold.release();
      let live = true;
      // Held by a request that will close without releasing: the cap (1) cannot make room.
      const used = await store.use('s1', null, () => live);
      expect(used).toBeDefined();
      expect(await store.open(record('s2'))).toEqual({ refusal: 'principal-cap' });
      live = false;
      // Once the reconciliation saw it closed, s1 is idle again and gives way to s2.
      await expect
        .poll(async () => 'hold' in (await store.open(record('s2'))), { timeout: 10_000, interval: 250 })
        .toBe(true);
      expect(await store.use('s1', null)).toBeUndefined();
    } finally {
      await close();
    }
  });
});
