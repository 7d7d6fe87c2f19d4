/** The data access layer as one value handed to the GraphQL layer. */
import type { DatabaseHandle } from './database.js';
import { createAccounts } from './accounts.js';
import { createCatalog } from './catalog.js';
import { createReviews } from './reviews.js';
import { createWatchlist } from './watchlist.js';

export function createStore(handle: DatabaseHandle) {
  return {
    handle,
    catalog: createCatalog(handle.db, handle.dialect),
    accounts: createAccounts(handle.db),
    reviews: createReviews(handle.db),
    watchlist: createWatchlist(handle.db),
  };
}

export type Store = ReturnType<typeof createStore>;
