/**
 * Per-request DataLoaders: every relation is fetched in one query per level of the result, however many
 * parents ask, so a page of 100 movies with directors and cast costs a handful of queries.
 */
import DataLoader from 'dataloader';
import type { Store } from '../store/index.js';

/** One row (or undefined) per key, in key order. */
function byKey<K, V>(
  fetch: (keys: readonly K[]) => Promise<V[]>,
  keyOf: (row: V) => K,
  signal?: AbortSignal,
) {
  return new DataLoader<K, V | undefined>(async (keys) => {
    signal?.throwIfAborted();
    const rows = new Map((await fetch(keys)).map((row) => [keyOf(row), row]));
    return keys.map((key) => rows.get(key));
  });
}

/** All rows per key (possibly none), in the order the query returned them. */
function groupedBy<K, V>(
  fetch: (keys: readonly K[]) => Promise<V[]>,
  keyOf: (row: V) => K | null,
  signal?: AbortSignal,
) {
  return new DataLoader<K, V[]>(async (keys) => {
    signal?.throwIfAborted();
    const groups = new Map<K, V[]>(keys.map((key) => [key, []]));
    for (const row of await fetch(keys)) {
      const key = keyOf(row);
      if (key !== null) groups.get(key)?.push(row);
    }
    return keys.map((key) => groups.get(key) ?? []);
  });
}

/** How each loader is made, from the store and the attempt's signal. */
const LOADERS = {
  movie: ({ catalogue }: Store, signal?: AbortSignal) => byKey(catalogue.moviesByIds, (m) => m.id, signal),
  person: ({ catalogue }: Store, signal?: AbortSignal) => byKey(catalogue.peopleByIds, (p) => p.id, signal),
  tvShow: ({ catalogue }: Store, signal?: AbortSignal) => byKey(catalogue.tvShowsByIds, (s) => s.id, signal),
  user: ({ accounts }: Store, signal?: AbortSignal) => byKey(accounts.usersByIds, (u) => u.id, signal),
  userByUsername: ({ accounts }: Store, signal?: AbortSignal) =>
    byKey(accounts.usersByUsernames, (u) => u.username, signal),
  directorsOfMovie: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.directorsOfMovies, (row) => row.owner_id, signal),
  castOfMovie: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.castOfMovies, (row) => row.movie_id, signal),
  reviewsOfMovie: ({ reviews }: Store, signal?: AbortSignal) =>
    groupedBy(reviews.ofMovies, (row) => row.movie_id, signal),
  reviewCountOfMovie: ({ reviews }: Store, signal?: AbortSignal) =>
    new DataLoader<number, number>(async (ids) => {
      signal?.throwIfAborted();
      const counts = new Map(
        (await reviews.countsForMovies(ids)).map((row) => [row.movie_id, Number(row.count)]),
      );
      return ids.map((id) => counts.get(id) ?? 0);
    }),
  moviesDirectedBy: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.moviesDirectedBy, (row) => row.owner_id, signal),
  movieCreditsOf: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.movieCreditsOf, (row) => row.person_id, signal),
  creatorsOfShow: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.creatorsOfShows, (row) => row.owner_id, signal),
  castOfShow: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.castOfShows, (row) => row.tv_show_id, signal),
  episodesOfShow: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.episodesOfShows, (row) => row.tv_show_id, signal),
  reviewsOfShow: ({ reviews }: Store, signal?: AbortSignal) =>
    groupedBy(reviews.ofShows, (row) => row.tv_show_id, signal),
  showsCreatedBy: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.showsCreatedBy, (row) => row.owner_id, signal),
  showCreditsOf: ({ catalogue }: Store, signal?: AbortSignal) =>
    groupedBy(catalogue.showCreditsOf, (row) => row.person_id, signal),
};

export type Loaders = { readonly [Name in keyof typeof LOADERS]: ReturnType<(typeof LOADERS)[Name]> };

/**
 * An operation uses two or three of the loaders: each is made when first asked for, not all of them per
 * attempt (18 DataLoaders, each with its own cache and batch state, were a measurable share of a call's
 * allocations). The getters live on the prototype, so making the set costs one small object.
 */
class LazyLoaders {
  readonly made: Partial<Record<keyof Loaders, unknown>> = {};
  constructor(
    readonly store: Store,
    readonly signal: AbortSignal | undefined,
  ) {}
}
for (const [name, make] of Object.entries(LOADERS) as [keyof Loaders, (typeof LOADERS)[keyof Loaders]][]) {
  Object.defineProperty(LazyLoaders.prototype, name, {
    get(this: LazyLoaders) {
      return (this.made[name] ??= make(this.store, this.signal));
    },
  });
}

/**
 * `signal` is the request's (its deadline or its caller's cancellation): once it has aborted no further
 * batch goes to the database, so abandoned work stops at the next level instead of queueing for a
 * pooled connection ahead of live requests.
 */
export function createLoaders(store: Store, signal?: AbortSignal): Loaders {
  return new LazyLoaders(store, signal) as unknown as Loaders;
}
