/**
 * Refuses a token of ours whose account no longer exists (a 401 on /graphql and /mcp alike, since both
 * read bearers through readBearer), and takes the role from the account as it is now, so a deleted,
 * demoted or re-created account (a new id: ids are never reused) is refused from the next request on,
 * on every replica, rather than when the token expires.
 *
 * Accounts are remembered per process, so a signed-in request does not wait for the store. What keeps
 * that promise is the store's account-change feed (src/store/account-changes.ts): a deletion or a role
 * change, however it is made, forgets that account on every replica as soon as the notice arrives (at
 * commit on PostgreSQL, milliseconds; at once on SQLite). While the feed is not live (its connection is
 * down) nothing is remembered and every request asks the store. A remembered account is trusted for at
 * most `maxAgeMs` (5 s), which bounds what a notice lost on a connection that looks alive can cost.
 *
 * When the store cannot answer in time the token is let through with its own claims, its role capped at
 * USER (a role only the store can confirm): every resolver that acts for the viewer loads the account by
 * id and refuses with UNAUTHORIZED when it is gone, so availability of the bearer check follows the
 * store's, and privilege never outlives a demotion however busy the store is kept.
 */
import { TaskCancelledError, TimeoutStrategy, timeout } from 'cockatiel';
import type { AccountChanges } from '../store/account-changes.js';
import type { RoleName } from './identity.js';
import type { BearerVerifier } from './bearer.js';
import { InvalidTokenError } from './tokens.js';

export interface AccountCheckOptions {
  /** The account's current role, or undefined when no account has this id. */
  findAccount(userId: number): Promise<{ role: RoleName } | undefined>;
  /** How long to wait for the store before falling back to the token's claims. */
  timeoutMs: number;
  /** Told when the lookup failed or timed out (the request goes on); at most once per 10 s. */
  onUnavailable?: (error: unknown) => void;
  /** Deletions and role changes as the store reports them; without it every request asks the store. */
  changes?: Pick<AccountChanges, 'live' | 'onChange'>;
  /** The longest a remembered account is trusted without asking again (the bound on a lost notice). */
  maxAgeMs?: number;
  /** Accounts remembered at most; the oldest is forgotten first. */
  maxEntries?: number;
  now?: () => number;
}

/** During an outage every request would report the same thing: say it once per interval. */
const REPORT_INTERVAL_MS = 10_000;
export const ACCOUNT_MAX_AGE_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** What the store said about an account id: its role, or null when there is no such account. */
interface Remembered {
  role: RoleName | null;
  checkedAt: number;
}

export function withAccountCheck(verifier: BearerVerifier, options: AccountCheckOptions): BearerVerifier {
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? ACCOUNT_MAX_AGE_MS;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const remembered = new Map<number, Remembered>();
  // Bumped by every change notice: a lookup that began before one may have read the old row, so its
  // answer is used for its own request but not remembered.
  let generation = 0;
  options.changes?.onChange((userId) => {
    generation++;
    if (userId === null) remembered.clear();
    else remembered.delete(userId);
  });

  let lastReport = -Infinity;
  const unavailable = (error: unknown) => {
    const at = Date.now();
    if (at - lastReport < REPORT_INTERVAL_MS) return;
    lastReport = at;
    options.onUnavailable?.(error);
  };
  // abortOnReturn off: nothing is left to abandon once the lookup answered, and aborting would build an
  // AbortError per request.
  const lookupDeadline = timeout(options.timeoutMs, {
    strategy: TimeoutStrategy.Aggressive,
    abortOnReturn: false,
  });

  /** The account's role (null: no such account), from memory when that is still true, else the store. */
  async function roleOf(userId: number): Promise<RoleName | null | undefined> {
    const live = options.changes?.live() === true;
    const hit = live ? remembered.get(userId) : undefined;
    if (hit && now() - hit.checkedAt < maxAgeMs) return hit.role;
    const before = generation;
    const checkedAt = now();
    let account: { role: RoleName } | undefined;
    try {
      account = await lookupDeadline.execute(() => options.findAccount(userId));
    } catch (error) {
      unavailable(error instanceof TaskCancelledError ? new Error('account lookup timed out') : error);
      return undefined;
    }
    const role = account?.role ?? null;
    if (live && generation === before) {
      remembered.delete(userId);
      remembered.set(userId, { role, checkedAt });
      // Insertion order is age order: drop the oldest when full.
      if (remembered.size > maxEntries) remembered.delete(remembered.keys().next().value as number);
    }
    return role;
  }

  return {
    async verify(token) {
      const identity = await verifier.verify(token);
      if (identity.userId === null) return identity;
      const role = await roleOf(identity.userId);
      // Unconfirmed, the token is worth no more than USER: anyone can make lookups slow by keeping the
      // pool busy, and a demoted administrator's old token must not win the role back that way.
      if (role === undefined) return identity.role === 'ADMIN' ? { ...identity, role: 'USER' } : identity;
      if (role === null)
        throw new InvalidTokenError('The account this token was issued for no longer exists');
      return role === identity.role ? identity : { ...identity, role };
    },
  };
}
