/**
 * The session store's contract (src/shared-state/session-store.ts), the same cases on the in-process
 * store and on Redis: binding to the owner, the caps and who gives way at them, holds as leases given
 * back by the reconciliation, deletion and the close notice.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMemorySessionStore } from '../../src/shared-state/memory-session-store.js';
import { createRedisSessionStore } from '../../src/shared-state/redis-session-store.js';
import type { SessionCaps, SessionStore } from '../../src/shared-state/session-store.js';
import { implementations } from '../helpers/shared-state.js';

const logger = createLogger('silent');
const storesWith = (caps: SessionCaps) =>
  implementations<SessionStore>(
    () => createMemorySessionStore(caps, logger),
    (redis) => createRedisSessionStore({ ...caps, redis, logger }),
  );

const record = (id: string, principal: string, owner: string | null = null) => ({
  id,
  owner,
  principal,
  protocolVersion: '2025-11-25',
  clientCapabilities: {},
  clientInfo: { name: 't', version: '1' },
});

describe.each(storesWith({ maxSessions: 3, maxPerUser: 2, maxPerAddress: 2, idleMs: 60_000 }))(
  'the session store (%s)',
  (_name, create) => {
    it('binds a session to its owner, evicts the least recently used idle one at a cap, refuses only when all candidates are busy, and deletes', async () => {
      const { value: store, close } = await create();
      try {
        const closed: string[] = [];
        store.onClosed((id) => closed.push(id));
        const opened = async (id: string, principal: string, owner: string | null = null) => {
          const outcome = await store.open(record(id, principal, owner));
          if (!('hold' in outcome)) throw new Error(`refused: ${outcome.refusal}`);
          return outcome.hold;
        };
        (await opened('a1', 'address:a')).release();
        (await opened('a2', 'address:a')).release();
        expect(await store.use('a1', 'someone')).toBeUndefined();
        const used = await store.use('a1', null);
        expect(used?.record).toMatchObject({
          id: 'a1',
          principal: 'address:a',
          protocolVersion: '2025-11-25',
        });
        used!.hold.release();
        // a2 is now the least recently used of address:a: it gives way to a3.
        (await opened('a3', 'address:a')).release();
        await expect.poll(async () => (await store.use('a2', null)) === undefined).toBe(true);
        // Both remaining sessions of address:a busy: a fourth is refused, at the principal's cap.
        const busy = [(await store.use('a1', null))!.hold, (await store.use('a3', null))!.hold];
        expect(await store.open(record('a4', 'address:a'))).toEqual({ refusal: 'principal-cap' });
        // The global cap (3): u1 fills it; u2 finds everyone busy but u1, the least recently used idle one.
        (await opened('u1', 'user:u', 'u')).release();
        const u2 = await opened('u2', 'user:u', 'u');
        expect(await store.use('u1', 'u')).toBeUndefined();
        expect(await store.open(record('v1', 'user:v', 'v'))).toEqual({ refusal: 'full' });
        u2.release();
        busy.forEach((hold) => hold.release());
        expect(await store.delete('u2', 'intruder')).toBe(false);
        expect(await store.delete('u2', 'u')).toBe(true);
        expect(await store.use('u2', 'u')).toBeUndefined();
        await expect.poll(() => closed.includes('u2')).toBe(true);
      } finally {
        await close();
      }
    });

    it('keeps what initialize recorded, and discard ends a session whatever its owner', async () => {
      const { value: store, close } = await create();
      try {
        const opened = await store.open({
          ...record('k1', 'user:k', 'k'),
          clientCapabilities: { elicitation: {} },
          clientInfo: { name: 'inspector', version: '2.12' },
        });
        if (!('hold' in opened)) throw new Error('refused');
        opened.hold.release();
        const used = await store.use('k1', 'k');
        expect(used?.record).toEqual({
          id: 'k1',
          owner: 'k',
          principal: 'user:k',
          protocolVersion: '2025-11-25',
          clientCapabilities: { elicitation: {} },
          clientInfo: { name: 'inspector', version: '2.12' },
        });
        used!.hold.release();
        expect(await store.use('k1', null)).toBeUndefined();
        await store.discard('k1');
        expect(await store.use('k1', 'k')).toBeUndefined();
        expect(await store.delete('k1', 'k')).toBe(false);
      } finally {
        await close();
      }
    });
  },
);

describe.each(storesWith({ maxSessions: 10, maxPerUser: 1, maxPerAddress: 1, idleMs: 60_000 }))(
  'session leases (%s store)',
  (_name, create) => {
    it('a hold whose request is no longer live is given back by the reconciliation, never while it is live', async () => {
      const { value: store, close } = await create();
      try {
        const opened = await store.open(record('s1', 'address:192.0.2.1'));
        if (!('hold' in opened)) throw new Error('refused');
        opened.hold.release();
        let live = true;
        // Held by a request that will close without releasing: the cap (1) cannot make room.
        const used = await store.use('s1', null, () => live);
        expect(used).toBeDefined();
        expect(await store.open(record('s2', 'address:192.0.2.1'))).toEqual({ refusal: 'principal-cap' });
        live = false;
        // Once the reconciliation saw it closed, s1 is idle again and gives way to s2.
        await expect
          .poll(async () => 'hold' in (await store.open(record('s2', 'address:192.0.2.1'))), {
            timeout: 10_000,
            interval: 250,
          })
          .toBe(true);
        expect(await store.use('s1', null)).toBeUndefined();
      } finally {
        await close();
      }
    });
  },
);
