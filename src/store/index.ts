/** The data access layer as one value handed to the GraphQL layer. */
import type { AccountChanges } from './account-changes.js';
import type { DatabaseHandle } from './database.js';
import { createAccounts } from './accounts.js';
import { createCatalogue } from './catalogue.js';
import { createIdempotencyKeys } from './idempotency-keys.js';
import { createReviews } from './reviews.js';
import { createStorePolicy, type StorePolicyOptions } from './store-policy.js';
import { createWatchlist } from './watchlist.js';

export type StoreOptions = Omit<StorePolicyOptions, 'ping'>;

/**
 * `options` come from the settings (GRAPHQL_TIMEOUT_MS, STORE_*), whose defaults live in config.ts;
 * `changes` is the store's change feed (database.watchAccountChanges()), which announces the watch-list
 * writes made through this store.
 */
export function createStore(
  database: DatabaseHandle,
  options: StoreOptions,
  changes: Pick<AccountChanges, 'announceOwnedRows'>,
) {
  const policy = createStorePolicy({ ...options, ping: () => database.ping() });
  const handle: DatabaseHandle = {
    ...database,
    // A successful ping (readiness) is evidence the database is back: an open circuit closes at once.
    ping: async () => {
      await database.ping();
      policy.reachable();
    },
  };
  return {
    handle,
    policy,
    catalogue: createCatalogue(handle.db, handle.dialect),
    accounts: createAccounts(handle.db),
    reviews: createReviews(handle.db),
    watchlist: createWatchlist(handle.db),
    idempotencyKeys: createIdempotencyKeys(handle.db),
    /** After a committed write to an account's own rows (null: any account's): see AccountChanges. */
    ownRowsChanged: (userId: number | null) => changes.announceOwnedRows(userId),
  };
}

export type Store = ReturnType<typeof createStore>;
