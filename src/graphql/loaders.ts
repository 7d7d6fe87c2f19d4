/**
 * Per-request DataLoaders: every relation is fetched in one query per level of the result, however many
 * parents ask, so a page of 100 movies with directors and cast costs a handful of queries.
 */
import DataLoader from 'dataloader';
import type { Store } from '../store/index.js';

/** One row (or undefined) per key, in key order. */
function byKey<K, V>(fetch: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K) {
  return new DataLoader<K, V | undefined>(async (keys) => {
    const rows = new Map((await fetch(keys)).map((row) => [keyOf(row), row]));
    return keys.map((key) => rows.get(key));
  });
}

/** All rows per key (possibly none), in the order the query returned them. */
function groupedBy<K, V>(fetch: (keys: readonly K[]) => Promise<V[]>, keyOf: (row: V) => K | null) {
  return new DataLoader<K, V[]>(async (keys) => {
    const groups = new Map<K, V[]>(keys.map((key) => [key, []]));
    for (const row of await fetch(keys)) {
      const key = keyOf(row);
      if (key !== null) groups.get(key)?.push(row);
    }
    return keys.map((key) => groups.get(key) ?? []);
  });
}

export function createLoaders(store: Store) {
  const { catalog, accounts, reviews } = store;
  return {
    movie: byKey(catalog.moviesByIds, (m) => m.id),
    person: byKey(catalog.peopleByIds, (p) => p.id),
    tvShow: byKey(catalog.tvShowsByIds, (s) => s.id),
    user: byKey(accounts.usersByIds, (u) => u.id),
    userByUsername: byKey(accounts.usersByUsernames, (u) => u.username),
    directorsOfMovie: groupedBy(catalog.directorsOfMovies, (row) => row.owner_id),
    castOfMovie: groupedBy(catalog.castOfMovies, (row) => row.movie_id),
    reviewsOfMovie: groupedBy(reviews.ofMovies, (row) => row.movie_id),
    reviewCountOfMovie: new DataLoader<number, number>(async (ids) => {
      const counts = new Map(
        (await reviews.countsForMovies(ids)).map((row) => [row.movie_id, Number(row.count)]),
      );
      return ids.map((id) => counts.get(id) ?? 0);
    }),
    moviesDirectedBy: groupedBy(catalog.moviesDirectedBy, (row) => row.owner_id),
    movieCreditsOf: groupedBy(catalog.movieCreditsOf, (row) => row.person_id),
    creatorsOfShow: groupedBy(catalog.creatorsOfShows, (row) => row.owner_id),
    castOfShow: groupedBy(catalog.castOfShows, (row) => row.tv_show_id),
    episodesOfShow: groupedBy(catalog.episodesOfShows, (row) => row.tv_show_id),
    reviewsOfShow: groupedBy(reviews.ofShows, (row) => row.tv_show_id),
    showsCreatedBy: groupedBy(catalog.showsCreatedBy, (row) => row.owner_id),
    showCreditsOf: groupedBy(catalog.showCreditsOf, (row) => row.person_id),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
