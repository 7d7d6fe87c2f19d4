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

/**
 * `signal` is the request's (its deadline or its caller's cancellation): once it has aborted no further
 * batch goes to the database, so abandoned work stops at the next level instead of queueing for a
 * pooled connection ahead of live requests.
 */
export function createLoaders(store: Store, signal?: AbortSignal) {
  const { catalogue, accounts, reviews } = store;
  return {
    movie: byKey(catalogue.moviesByIds, (m) => m.id, signal),
    person: byKey(catalogue.peopleByIds, (p) => p.id, signal),
    tvShow: byKey(catalogue.tvShowsByIds, (s) => s.id, signal),
    user: byKey(accounts.usersByIds, (u) => u.id, signal),
    userByUsername: byKey(accounts.usersByUsernames, (u) => u.username, signal),
    directorsOfMovie: groupedBy(catalogue.directorsOfMovies, (row) => row.owner_id, signal),
    castOfMovie: groupedBy(catalogue.castOfMovies, (row) => row.movie_id, signal),
    reviewsOfMovie: groupedBy(reviews.ofMovies, (row) => row.movie_id, signal),
    reviewCountOfMovie: new DataLoader<number, number>(async (ids) => {
      signal?.throwIfAborted();
      const counts = new Map(
        (await reviews.countsForMovies(ids)).map((row) => [row.movie_id, Number(row.count)]),
      );
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    moviesDirectedBy: groupedBy(catalogue.moviesDirectedBy, (row) => row.owner_id, signal),
    movieCreditsOf: groupedBy(catalogue.movieCreditsOf, (row) => row.person_id, signal),
    creatorsOfShow: groupedBy(catalogue.creatorsOfShows, (row) => row.owner_id, signal),
    castOfShow: groupedBy(catalogue.castOfShows, (row) => row.tv_show_id, signal),
    episodesOfShow: groupedBy(catalogue.episodesOfShows, (row) => row.tv_show_id, signal),
    reviewsOfShow: groupedBy(reviews.ofShows, (row) => row.tv_show_id, signal),
    showsCreatedBy: groupedBy(catalogue.showsCreatedBy, (row) => row.owner_id, signal),
    showCreditsOf: groupedBy(catalogue.showCreditsOf, (row) => row.person_id, signal),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
