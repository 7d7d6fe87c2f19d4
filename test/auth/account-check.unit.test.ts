/**
 * The account check's memory (src/auth/account-check.ts) with a change feed and a clock the test drives:
 * what is remembered, what forgets it, and the bound a lost notice costs.
 */
import { describe, expect, it } from 'vitest';
import { withAccountCheck } from '../../src/auth/account-check.js';
import type { BearerVerifier } from '../../src/auth/bearer.js';
import type { Identity } from '../../src/auth/identity.js';
import type { AccountChangeListener } from '../../src/store/account-changes.js';
import type { RoleName } from '../../src/store/tables.js';

const identity = (userId: number, role: RoleName = 'USER'): Identity => ({
  subject: String(userId),
  userId,
  role,
  scopes: [],
  expiresAt: 2_000_000_000,
});

function setUp(options: { live?: boolean; maxAgeMs?: number } = {}) {
  const accounts = new Map<number, RoleName>([
    [1, 'USER'],
    [2, 'ADMIN'],
  ]);
  let lookups = 0;
  let clock = 0;
  let listener: AccountChangeListener = () => undefined;
  const feed = { live: () => options.live ?? true, onChange: (l: AccountChangeListener) => (listener = l) };
  /** Held lookups: each reads the account at once, then answers when the test says so. */
  let hold: Promise<void> | undefined;
  let onLookup: () => void = () => undefined;
  const verifier: BearerVerifier = { verify: async (token) => identity(Number(token)) };
  const checked = withAccountCheck(verifier, {
    findAccount: async (id) => {
      lookups++;
      const role = accounts.get(id);
      onLookup();
      await hold;
      return role && { role };
    },
    timeoutMs: 1000,
    changes: feed,
    maxAgeMs: options.maxAgeMs ?? 5000,
    now: () => clock,
  });
  return {
    accounts,
    verify: (userId: number) => checked.verify(String(userId)),
    lookups: () => lookups,
    advance: (ms: number) => (clock += ms),
    notify: (userId: number | null) => listener(userId),
    holdLookups: () => {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const started = new Promise<void>((resolve) => (onLookup = resolve));
      return {
        started,
        release: () => {
          hold = undefined;
          release();
        },
      };
    },
  };
}

describe('the account check remembers accounts until told of a change, for at most its bound', () => {
  it('a remembered account answers without asking the store again', async () => {
    const check = setUp();
    await check.verify(1);
    await check.verify(1);
    await check.verify(1);
    expect(check.lookups()).toBe(1);
  });

  it('a deletion notice makes the next request ask, and refuses the deleted account', async () => {
    const check = setUp();
    await check.verify(1);
    check.accounts.delete(1);
    await expect(check.verify(1)).resolves.toMatchObject({ userId: 1 });
    check.notify(1);
    await expect(check.verify(1)).rejects.toThrow('no longer exists');
    expect(check.lookups()).toBe(2);
  });

  it('a role change notice gives the next request the account’s new role', async () => {
    const check = setUp();
    expect((await check.verify(2)).role).toBe('ADMIN');
    check.accounts.set(2, 'USER');
    check.notify(2);
    expect((await check.verify(2)).role).toBe('USER');
  });

  it('a notice that names no account forgets them all', async () => {
    const check = setUp();
    await check.verify(1);
    await check.verify(2);
    check.notify(null);
    await check.verify(1);
    await check.verify(2);
    expect(check.lookups()).toBe(4);
  });

  it('without any notice, a remembered account is asked for again once its bound has passed', async () => {
    const check = setUp({ maxAgeMs: 5000 });
    await check.verify(1);
    check.accounts.delete(1);
    check.advance(4999);
    await expect(check.verify(1)).resolves.toMatchObject({ userId: 1 });
    check.advance(1);
    await expect(check.verify(1)).rejects.toThrow('no longer exists');
  });

  it('a missing account is remembered too, so a deleted account’s token does not reach the store each time', async () => {
    const check = setUp();
    await expect(check.verify(7)).rejects.toThrow('no longer exists');
    await expect(check.verify(7)).rejects.toThrow('no longer exists');
    expect(check.lookups()).toBe(1);
  });

  it('while the feed is not live, every request asks the store', async () => {
    const check = setUp({ live: false });
    await check.verify(1);
    await check.verify(1);
    expect(check.lookups()).toBe(2);
  });

  it('an answer read before a change notice serves its own request but is not remembered', async () => {
    const check = setUp();
    const { started, release } = check.holdLookups();
    const first = check.verify(1);
    await started;
    check.accounts.delete(1);
    check.notify(1);
    release();
    await expect(first).resolves.toMatchObject({ userId: 1 });
    await expect(check.verify(1)).rejects.toThrow('no longer exists');
  });
});

describe('when the store cannot say what the account is now', () => {
  const adminClaims: BearerVerifier = { verify: async () => identity(2, 'ADMIN') };

  it('a lookup past its deadline lets the token through as USER, never with the ADMIN role it claims', async () => {
    // Anyone can make lookups slow by keeping the pool busy: a demoted administrator's old token must
    // not win the role back that way.
    const checked = withAccountCheck(adminClaims, {
      findAccount: () => new Promise(() => undefined),
      timeoutMs: 20,
    });
    await expect(checked.verify('2')).resolves.toMatchObject({ userId: 2, role: 'USER' });
  });

  it('a failed lookup does the same, and a USER token keeps its role', async () => {
    const findAccount = () => Promise.reject(new Error('connection refused'));
    const admin = withAccountCheck(adminClaims, { findAccount, timeoutMs: 1000 });
    await expect(admin.verify('2')).resolves.toMatchObject({ role: 'USER' });
    const user = withAccountCheck({ verify: async () => identity(1) }, { findAccount, timeoutMs: 1000 });
    await expect(user.verify('1')).resolves.toMatchObject({ userId: 1, role: 'USER' });
  });
});
