/** Read and write access to movies, people and TV shows, including the batched lookups loaders use. */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, GenreName, Movie, NewMovie, Person, TvShow } from './tables.js';
import type { Dialect } from './database.js';
import { prepareQuery } from './prepared-query.js';
import { ftsPhrase, substringMatch } from './substring-match.js';

export type MovieSortField = 'TITLE' | 'RELEASE_YEAR' | 'RATING' | 'RUNTIME';

/** The MovieFilter input of the schema: conditions a listed movie must meet. */
export interface MovieFilter {
  genre?: GenreName | null;
  minRating?: number | null;
  maxRating?: number | null;
  minYear?: number | null;
  maxYear?: number | null;
  titleContains?: string | null;
}

export interface MovieQuery extends MovieFilter {
  sortField: MovieSortField;
  descending: boolean;
  offset: number;
  limit: number;
}

/** Byte-order title sort in both dialects, so SQLite and PostgreSQL list titles identically. */
function titleOrder(dialect: Dialect, column = 'title'): RawBuilder<string> {
  return dialect === 'postgres' ? sql`lower(${sql.ref(column)}) collate "C"` : sql`lower(${sql.ref(column)})`;
}

/** Columns that can be null sort it last in either direction; the others need no term for it. */
const NULLABLE_SORT_FIELDS: ReadonlySet<MovieSortField> = new Set(['RATING', 'RUNTIME']);

export function createCatalogue(db: Kysely<Database>, dialect: Dialect) {
  // The hot loader statements, compiled once per batch size (prepared-query.ts).
  const moviesById = prepareQuery(db, (q, ids: readonly number[]) =>
    q.selectFrom('movies').selectAll().where('id', 'in', ids),
  );
  const tvShowsById = prepareQuery(db, (q, ids: readonly number[]) =>
    q.selectFrom('tv_shows').selectAll().where('id', 'in', ids),
  );
  const directorsById = prepareQuery(db, (q, movieIds: readonly number[]) =>
    q
      .selectFrom('movie_directors')
      .innerJoin('people', 'people.id', 'movie_directors.person_id')
      .selectAll('people')
      .select('movie_directors.movie_id as owner_id')
      .where('movie_directors.movie_id', 'in', movieIds)
      .orderBy('people.id'),
  );
  const moviesByIds = (ids: readonly number[]) => moviesById.execute([ids]);
  function filteredMovies(q: MovieFilter) {
    let query = db.selectFrom('movies');
    if (q.genre) query = query.where('genre', '=', q.genre);
    if (q.minRating != null) query = query.where('rating', '>=', q.minRating);
    if (q.maxRating != null) query = query.where('rating', '<=', q.maxRating);
    if (q.minYear != null) query = query.where('release_year', '>=', q.minYear);
    if (q.maxYear != null) query = query.where('release_year', '<=', q.maxYear);
    if (q.titleContains) query = query.where(substringMatch(dialect, 'movies', 'title', q.titleContains));
    return query;
  }

  async function countMovies(q: MovieFilter): Promise<{ total: number | string | bigint }> {
    const titleOnly =
      !q.genre && q.minRating == null && q.maxRating == null && q.minYear == null && q.maxYear == null;
    const phrase = q.titleContains && titleOnly ? ftsPhrase(dialect, q.titleContains) : undefined;
    if (phrase === undefined) {
      return filteredMovies(q)
        .select((eb) => eb.fn.countAll().as('total'))
        .executeTakeFirstOrThrow();
    }
    // The FTS table alone knows how many titles match (it holds one entry per movie).
    const { rows } = await sql<{
      total: number;
    }>`select count(*) as total from movies_fts where movies_fts match ${phrase}`.execute(db);
    return rows[0] ?? { total: 0 };
  }

  return {
    async findMovies(q: MovieQuery): Promise<{ rows: Movie[]; total: number }> {
      const direction = q.descending ? sql`desc` : sql`asc`;
      const column = { TITLE: 'title', RELEASE_YEAR: 'release_year', RATING: 'rating', RUNTIME: 'runtime' }[
        q.sortField
      ];
      const sortKey = q.sortField === 'TITLE' ? titleOrder(dialect) : sql.ref(column);
      // Unknown values sort last in either direction; ties fall back to id for a stable order. Written
      // as the indexes are (movies_title_idx, movies_genre_title_idx in migrations.ts), so a page by title
      // walks an index instead of sorting every match.
      const nulls = NULLABLE_SORT_FIELDS.has(q.sortField) ? sql` nulls last` : sql``;
      // The page's ids first (from the index alone, in order), then its rows: skipping `offset` index
      // entries is cheap, fetching `offset` rows is not (PostgreSQL sorted a whole genre rather than
      // fetch 6,000 rows for page 600). The count is its own statement, served by its own index, beside
      // the page (side by side on PostgreSQL): one statement with count(*) over () made SQLite
      // materialise and sort a whole genre (15 ms against 1).
      const [ids, count] = await Promise.all([
        filteredMovies(q)
          .select('id')
          .orderBy(sql`${sortKey} ${direction}${nulls}`)
          .orderBy('id')
          .offset(q.offset)
          .limit(q.limit)
          .execute(),
        countMovies(q),
      ]);
      const found = ids.length > 0 ? await moviesByIds(ids.map((row) => row.id)) : [];
      const byId = new Map(found.map((movie) => [movie.id, movie]));
      // A movie deleted between the two statements is simply left out of the page.
      const rows = ids.flatMap((row) => byId.get(row.id) ?? []);
      return { rows, total: Number(count.total) };
    },

    moviesByIds,
    peopleByIds: (ids: readonly number[]) =>
      db
        .selectFrom('people')
        .selectAll()
        .where('id', 'in', [...ids])
        .execute(),
    tvShowsByIds: (ids: readonly number[]) => tvShowsById.execute([ids]),

    async pageOfPeople(offset: number, limit: number): Promise<{ rows: Person[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('people')
          .selectAll()
          .orderBy(titleOrder(dialect, 'name'))
          .orderBy('id')
          .offset(offset)
          .limit(limit)
          .execute(),
        db
          .selectFrom('people')
          .select((eb) => eb.fn.countAll().as('total'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    async pageOfTvShows(offset: number, limit: number): Promise<{ rows: TvShow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('tv_shows')
          .selectAll()
          .orderBy(titleOrder(dialect))
          .orderBy('id')
          .offset(offset)
          .limit(limit)
          .execute(),
        db
          .selectFrom('tv_shows')
          .select((eb) => eb.fn.countAll().as('total'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    async search(text: string, limit: number) {
      const [movies, people, shows] = await Promise.all([
        db
          .selectFrom('movies')
          .selectAll()
          .where(substringMatch(dialect, 'movies', 'title', text))
          .orderBy(titleOrder(dialect))
          .orderBy('id')
          .limit(limit)
          .execute(),
        db
          .selectFrom('people')
          .selectAll()
          .where(substringMatch(dialect, 'people', 'name', text))
          .orderBy(titleOrder(dialect, 'name'))
          .orderBy('id')
          .limit(limit)
          .execute(),
        db
          .selectFrom('tv_shows')
          .selectAll()
          .where(substringMatch(dialect, 'tv_shows', 'title', text))
          .orderBy(titleOrder(dialect))
          .orderBy('id')
          .limit(limit)
          .execute(),
      ]);
      return { movies, people, shows };
    },

    /**
     * Movies suiting a mood rule, best rated first (docs/contract.md, Recommendations). Each genre's best are read in order
     * from movies_genre_rating_idx (genre, rating desc, id) and stop at `limit`, so at most
     * genres x limit rows are ordered, however large the catalogue.
     */
    recommend(
      rule: { genres: readonly GenreName[]; minRating: number; maxRuntime?: number },
      excludeWatchedBy: number | null,
      limit: number,
    ) {
      const bestOfGenre = (genre: GenreName) => {
        let query = db
          .selectFrom('movies')
          .selectAll()
          .where('genre', '=', genre)
          .where('rating', 'is not', null)
          .where('rating', '>=', rule.minRating);
        if (rule.maxRuntime !== undefined) {
          const cap = rule.maxRuntime;
          query = query.where((eb) => eb.or([eb('runtime', 'is', null), eb('runtime', '<=', cap)]));
        }
        if (excludeWatchedBy !== null) {
          query = query.where('id', 'not in', (eb) =>
            eb
              .selectFrom('watchlist_items')
              .select('movie_id as id')
              .where('user_id', '=', excludeWatchedBy)
              .where('status', '=', 'WATCHED')
              .where('movie_id', 'is not', null)
              .$narrowType<{ id: number }>(),
          );
        }
        return query.orderBy('rating', 'desc').orderBy('id', 'asc').limit(limit);
      };
      const [first, ...others] = rule.genres.map((genre, i) =>
        db.selectFrom(bestOfGenre(genre).as(`best_${i}`)).selectAll(),
      );
      if (!first) return Promise.resolve([]);
      return others
        .reduce((union, next) => union.unionAll(next), first)
        .orderBy('rating', 'desc')
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
    },

    directorsOfMovies: (movieIds: readonly number[]) => directorsById.execute([movieIds]),
    castOfMovies: (movieIds: readonly number[]) =>
      db
        .selectFrom('movie_cast')
        .selectAll()
        .where('movie_id', 'in', [...movieIds])
        .orderBy('id')
        .execute(),
    moviesDirectedBy: (personIds: readonly number[]) =>
      db
        .selectFrom('movie_directors')
        .innerJoin('movies', 'movies.id', 'movie_directors.movie_id')
        .selectAll('movies')
        .select('movie_directors.person_id as owner_id')
        .where('movie_directors.person_id', 'in', [...personIds])
        .orderBy('movies.release_year')
        .orderBy('movies.id')
        .execute(),
    movieCreditsOf: (personIds: readonly number[]) =>
      db
        .selectFrom('movie_cast')
        .selectAll()
        .where('person_id', 'in', [...personIds])
        .orderBy('id')
        .execute(),
    creatorsOfShows: (showIds: readonly number[]) =>
      db
        .selectFrom('tv_show_creators')
        .innerJoin('people', 'people.id', 'tv_show_creators.person_id')
        .selectAll('people')
        .select('tv_show_creators.tv_show_id as owner_id')
        .where('tv_show_creators.tv_show_id', 'in', [...showIds])
        .orderBy('people.id')
        .execute(),
    castOfShows: (showIds: readonly number[]) =>
      db
        .selectFrom('tv_show_cast')
        .selectAll()
        .where('tv_show_id', 'in', [...showIds])
        .orderBy('id')
        .execute(),
    showsCreatedBy: (personIds: readonly number[]) =>
      db
        .selectFrom('tv_show_creators')
        .innerJoin('tv_shows', 'tv_shows.id', 'tv_show_creators.tv_show_id')
        .selectAll('tv_shows')
        .select('tv_show_creators.person_id as owner_id')
        .where('tv_show_creators.person_id', 'in', [...personIds])
        .orderBy('tv_shows.start_year')
        .orderBy('tv_shows.id')
        .execute(),
    showCreditsOf: (personIds: readonly number[]) =>
      db
        .selectFrom('tv_show_cast')
        .selectAll()
        .where('person_id', 'in', [...personIds])
        .orderBy('id')
        .execute(),
    episodesOfShows: (showIds: readonly number[]) =>
      db
        .selectFrom('episodes')
        .selectAll()
        .where('tv_show_id', 'in', [...showIds])
        .orderBy('season_number')
        .orderBy('episode_number')
        .execute(),

    // Writes take the transaction they run in (src/store/write-transaction.ts).
    async createMovie(movie: NewMovie, directorIds: number[], trx: Kysely<Database>): Promise<Movie> {
      const created = await trx.insertInto('movies').values(movie).returningAll().executeTakeFirstOrThrow();
      if (directorIds.length > 0) {
        await trx
          .insertInto('movie_directors')
          .values(directorIds.map((person_id) => ({ movie_id: created.id, person_id })))
          .execute();
      }
      return created;
    },

    async updateMovie(
      id: number,
      changes: Partial<NewMovie>,
      directorIds: number[] | undefined,
      trx: Kysely<Database>,
    ): Promise<Movie | undefined> {
      const updated =
        Object.keys(changes).length > 0
          ? await trx
              .updateTable('movies')
              .set(changes)
              .where('id', '=', id)
              .returningAll()
              .executeTakeFirst()
          : await trx.selectFrom('movies').selectAll().where('id', '=', id).executeTakeFirst();
      if (updated && directorIds !== undefined) {
        await trx.deleteFrom('movie_directors').where('movie_id', '=', id).execute();
        if (directorIds.length > 0) {
          await trx
            .insertInto('movie_directors')
            .values(directorIds.map((person_id) => ({ movie_id: id, person_id })))
            .execute();
        }
      }
      return updated;
    },

    async deleteMovie(id: number, trx: Kysely<Database>): Promise<boolean> {
      const result = await trx.deleteFrom('movies').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
