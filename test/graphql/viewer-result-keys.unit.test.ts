/**
 * Which reads the result cache keeps under the caller's account (src/graphql/result-cache.ts, @viewerResult),
 * and what forgets them: keys as data, with the store's change feed given as a value whose liveness and
 * notices the test decides (the feed itself is tested against the stores in viewer-results.test.ts).
 */
import { getDirective } from '@graphql-tools/utils';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Identity } from '../../src/auth/identity.js';
import { authRuleOf } from '../../src/graphql/auth-directives.js';
import { createResultCache } from '../../src/graphql/result-cache.js';
import { buildSchema } from '../../src/graphql/schema.js';
import type { AccountChangeListener } from '../../src/store/account-changes.js';

const schema = buildSchema();
const WATCHLIST = parse('{ watchlist { id status content { title ... on Movie { releaseYear } } } }');
const MIXED = parse('{ watchlist { id } movie(id: "1") { title } }');
const PRIVATE_BELOW = parse('{ watchlist { content { ... on Movie { reviews { user { email } } } } } }');
const ME = parse('{ me { id } }');

const account = (userId: number | null, scopes: readonly string[] = ALL_SCOPES): Identity => ({
  subject: userId === null ? 'oauth:someone' : String(userId),
  userId,
  role: 'USER',
  scopes,
  expiresAt: 2_000_000_000,
});

function cacheWithFeed() {
  const feed = { isLive: true, account: [] as AccountChangeListener[], owned: [] as AccountChangeListener[] };
  const cache = createResultCache(schema, { maxBytes: 1 << 20, ttlMs: 60_000 });
  cache.followViewers({
    listening: () => feed.isLive,
    onChange: (listener) => void feed.account.push(listener),
    onOwnedRowsChange: (listener) => void feed.owned.push(listener),
  });
  const notify = (listeners: AccountChangeListener[], userId: number | null) =>
    listeners.forEach((listener) => listener(userId));
  return { cache, feed, notify };
}

const keyOf = (cache: ReturnType<typeof createResultCache>, document = WATCHLIST, viewer = account(1)) =>
  cache.keyOf(document, undefined, {}, viewer);

describe('reads kept under the caller’s account', () => {
  it('a @viewerResult read, alone or beside shared fields, gets a key of its account’s own', () => {
    const { cache } = cacheWithFeed();
    expect(keyOf(cache)).toEqual(expect.any(String));
    expect(keyOf(cache, WATCHLIST, account(2))).not.toBe(keyOf(cache));
    expect(keyOf(cache, MIXED)).toEqual(expect.any(String));
  });

  it('is not kept for the anonymous, an external identity, a token short of its scope, or below-root private fields', () => {
    const { cache } = cacheWithFeed();
    expect(cache.keyOf(WATCHLIST, undefined, {}, null)).toBeUndefined();
    expect(keyOf(cache, WATCHLIST, account(null))).toBeUndefined();
    expect(keyOf(cache, WATCHLIST, account(1, ['movies:read']))).toBeUndefined();
    expect(keyOf(cache, PRIVATE_BELOW)).toBeUndefined();
    expect(keyOf(cache, ME)).toBeUndefined();
  });

  it('is not kept while the store’s feed is not live, nor before the cache follows one', () => {
    const { cache, feed } = cacheWithFeed();
    feed.isLive = false;
    expect(keyOf(cache)).toBeUndefined();
    expect(keyOf(createResultCache(schema, { maxBytes: 1 << 20, ttlMs: 60_000 }))).toBeUndefined();
  });

  it('a change to an account’s rows, or to the account, forgets that account’s entries and no one else’s', () => {
    const { cache, feed, notify } = cacheWithFeed();
    const [mine, theirs] = [keyOf(cache)!, keyOf(cache, WATCHLIST, account(2))!];
    cache.set(mine, { data: { watchlist: [] } }, cache.generation());
    expect(cache.get(mine)).toBeDefined();
    notify(feed.owned, 1);
    expect(keyOf(cache)).not.toBe(mine);
    expect(cache.get(keyOf(cache)!)).toBeUndefined();
    expect(keyOf(cache, WATCHLIST, account(2))).toBe(theirs);
    const before = keyOf(cache)!;
    notify(feed.account, 1);
    expect(keyOf(cache)).not.toBe(before);
  });

  it('a change to anyone (a lost connection, another process’s commit) forgets every account’s entries', () => {
    const { cache, feed, notify } = cacheWithFeed();
    const keys = [keyOf(cache), keyOf(cache, WATCHLIST, account(2))];
    notify(feed.owned, null);
    expect([keyOf(cache), keyOf(cache, WATCHLIST, account(2))]).not.toContain(keys[0]);
    expect([keyOf(cache), keyOf(cache, WATCHLIST, account(2))]).not.toContain(keys[1]);
  });

  it('a write of only the writer’s own rows forgets its entries before any notice, and keeps everyone else’s', () => {
    // PostgreSQL's notice comes after the commit: the writer's next read must not wait for it.
    const { cache } = cacheWithFeed();
    const SET = parse('mutation { setWatchStatus(itemId: "1", status: WATCHED) { id } }');
    const SHARED = parse('{ movie(id: "1") { title } }');
    const [mine, theirs, shared] = [
      keyOf(cache)!,
      keyOf(cache, WATCHLIST, account(2))!,
      keyOf(cache, SHARED)!,
    ];
    for (const key of [mine, theirs, shared]) cache.set(key, { data: {} }, cache.generation());
    const generation = cache.generation();
    cache.wrote(SET, undefined, account(1));
    expect(keyOf(cache)).not.toBe(mine);
    expect(cache.get(keyOf(cache)!)).toBeUndefined();
    expect([keyOf(cache, WATCHLIST, account(2)), keyOf(cache, SHARED)]).toEqual([theirs, shared]);
    expect([cache.get(theirs), cache.get(shared)]).toEqual([{ data: {} }, { data: {} }]);
    expect(cache.generation()).toBe(generation);
    // A writer with no account id has nothing kept to forget; any other mutation forgets everything.
    cache.wrote(SET, undefined, account(null));
    cache.wrote(SET, undefined, null);
    expect([cache.get(theirs), cache.get(shared)]).toEqual([{ data: {} }, { data: {} }]);
    cache.wrote(parse('mutation { deleteReview(id: "1") }'), undefined, account(1));
    expect([cache.get(theirs), cache.get(shared)]).toEqual([undefined, undefined]);
  });

  it('a result computed while a write happened is not kept, for an account’s entries as for shared ones', () => {
    const { cache } = cacheWithFeed();
    const key = keyOf(cache)!;
    const generation = cache.generation();
    cache.invalidate(false);
    cache.set(key, { data: { watchlist: [] } }, generation);
    expect(cache.get(key)).toBeUndefined();
  });
});

describe('the schema’s @viewerResult roots', () => {
  it('require no role beyond USER: a hit is not checked for one (see result-cache.ts)', () => {
    const roots = Object.values(schema.getQueryType()!.getFields()).filter(
      (field) => getDirective(schema, field, 'viewerResult') !== undefined,
    );
    expect(roots.map((field) => field.name).sort()).toEqual(['watchlist', 'watchlistItem']);
    for (const field of roots) expect([undefined, 'USER']).toContain(authRuleOf(schema, field)?.requires);
  });
});
