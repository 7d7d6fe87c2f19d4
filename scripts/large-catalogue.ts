/**
 * The big catalogue of `npm run seed:large`: grows a migrated, seeded database to a fixed number of movies,
 * reviews, users and watch-list rows with generated data, so queries can be measured at a realistic size.
 *
 * - Deterministic: a seeded PRNG drives every choice, so the same database gets the same rows.
 * - Atomic and idempotent: everything is written in one transaction, and the first generated user is the
 *   marker that it committed; a second run finds it and adds nothing.
 * - The seed catalogue and its users are kept as they are; movie 1 gets `movieOneReviews` reviews from
 *   generated users and the seed user `user` a watch list of `demoWatchlist` generated movies.
 * - Generated users all share one password hash (of `password`, as the seed's other users): hashing
 *   10,000 passwords with scrypt would take minutes and prove nothing.
 */
import { sql, type Insertable, type Kysely } from 'kysely';
import { hashPassword } from '../src/auth/password.js';
import type { Dialect } from '../src/store/database.js';
import { advanceIdSequences } from '../src/store/seed.js';
import {
  GENRES,
  type Database,
  type GenreName,
  type ReviewsTable,
  type WatchStatusName,
} from '../src/store/tables.js';

export interface LargeCatalogueSize {
  /** Totals the tables reach, the seed catalogue's rows included. */
  movies: number;
  reviews: number;
  users: number;
  watchlistItems: number;
  /** Generated reviews of movie 1 (on top of its seed reviews). */
  movieOneReviews: number;
  /** Generated movies added to the seed user `user`'s watch list. */
  demoWatchlist: number;
}

export const LARGE_CATALOGUE: LargeCatalogueSize = {
  movies: 100_000,
  reviews: 1_000_000,
  users: 10_000,
  watchlistItems: 200_000,
  movieOneReviews: 5_000,
  demoWatchlist: 200,
};

/** The seed user whose watch list grows, and the password every generated user signs in with. */
export const DEMO_USERNAME = 'user';
export const GENERATED_PASSWORD = 'password';

export type LargeTable = 'users' | 'movies' | 'reviews' | 'watchlist_items';

export interface SeedProgress {
  /** Rows to write in all (0 when there is nothing to do). */
  start(total: number): void;
  /** `rows` more were written into `table`. */
  advance(table: LargeTable, rows: number): void;
}

export type LargeSeedOutcome =
  { added: false; reason: string } | { added: true; rows: Record<LargeTable, number> };

/** Name of the n-th generated user (from 1); the first is the marker that the large seed committed. */
const generatedUsername = (n: number) => `viewer${String(n).padStart(5, '0')}`;

/**
 * mulberry32: a seedable PRNG (Math.random cannot be seeded), a few lines and plenty for test data.
 * Each table gets its own stream, so changing how one is generated leaves the others as they were.
 */
function randomStream(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  /** Roughly normal (Irwin-Hall of four uniforms), without the tails a Box-Muller draw would have. */
  const normal = (mean: number, spread: number) =>
    mean + (next() + next() + next() + next() - 2) * spread * 1.7;
  return { next, int, pick, normal };
}
type Random = ReturnType<typeof randomStream>;

const ADJECTIVES =
  `Silent Crimson Broken Golden Hidden Last Lost Midnight Burning Frozen Savage Quiet Electric
  Hollow Wild Distant Fallen Iron Velvet Scarlet Shattered Endless Forgotten Restless Bitter Northern Secret Pale
  Dark Bright Wandering Sleeping Paper Glass Stolen Lonely Final Crooked Sunken Emerald Copper Silver Winter
  Summer Autumn Burnt Drowned Painted Howling`.split(/\s+/);
const NOUNS =
  `River Harbor Orchard Empire Horizon Garden Frontier Mirror Shadow Kingdom Storm Voyage Echo Lantern
  Canyon Citadel Meadow Signal Circus Compass Desert Engine Fortress Glacier Island Jungle Labyrinth Monsoon
  Nebula Outpost Prairie Quarry Reef Summit Tide Valley Wolf Pilgrim Railway Serpent Lighthouse Carnival Theatre
  Archive Market Bridge Tower Forest Station Highway`.split(/\s+/);
const SYLLABLES =
  `ka lo ren vi sa mor tel an du bri fen ga hal is jor kel mi nor pa quin ros ta ul ves wyn zar`.split(' ');
const ROMAN = ['II', 'III', 'IV', 'V', 'VI'];

function placeName(random: Random): string {
  const name = Array.from({ length: random.int(2, 3) }, () => random.pick(SYLLABLES)).join('');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function movieTitle(random: Random): string {
  const adjective = random.pick(ADJECTIVES);
  const noun = random.pick(NOUNS);
  switch (random.int(0, 6)) {
    case 0:
      return `The ${adjective} ${noun}`;
    case 1:
      return `${adjective} ${noun}`;
    case 2:
      return `${noun} of ${placeName(random)}`;
    case 3:
      return `The ${noun} of the ${adjective} ${random.pick(NOUNS)}`;
    case 4:
      return `${placeName(random)}'s ${noun}`;
    case 5:
      return `${adjective} ${noun} ${random.pick(ROMAN)}`;
    default:
      return `Return to ${placeName(random)}`;
  }
}

const ASPECTS =
  `acting pacing soundtrack cinematography dialogue ending characters script visuals plot atmosphere
  performances humour tension score editing direction costumes`.split(/\s+/);
const PRAISE =
  `was superb|felt gripping|was beautifully shot|stays with you|was genuinely moving|was sharp and witty|
  kept me hooked|was haunting|felt fresh|was outstanding`.split(/\s*\|\s*/);
const CRITICISM =
  `dragged badly|felt clumsy|was forgettable|made little sense|was overlong|felt flat|was predictable|
  was uneven`.split(/\s*\|\s*/);

function reviewComment(random: Random, score: number): string | null {
  if (random.next() < 0.25) return null;
  const verdict = (good: boolean) => `${random.pick(good ? PRAISE : CRITICISM)}`;
  const first = `The ${random.pick(ASPECTS)} ${verdict(score >= 6)}.`;
  return random.next() < 0.5 ? first : `${first} The ${random.pick(ASPECTS)} ${verdict(score >= 5)}.`;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const FIRST_REVIEW_DATE = Date.UTC(2015, 0, 1);
const REVIEW_DATE_SPAN_MS = Date.UTC(2026, 0, 1) - FIRST_REVIEW_DATE;

/**
 * Rows per statement: SQLite binds at most 32,766 parameters and PostgreSQL 65,535; large statements
 * keep the per-statement cost small beside the rows.
 */
const PARAMETERS_PER_STATEMENT = { sqlite: 30_000, postgres: 60_000 } as const;

async function insertRows<T extends LargeTable>(
  trx: Kysely<Database>,
  dialect: Dialect,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  progress: SeedProgress,
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const perStatement = Math.floor(PARAMETERS_PER_STATEMENT[dialect] / Object.keys(first).length);
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    await trx.insertInto(table).values(chunk).execute();
    progress.advance(table, chunk.length);
    // SQLite runs synchronously: let the progress bar and signals have a turn between statements.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function count(db: Kysely<Database>, table: LargeTable): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function maxId(db: Kysely<Database>, table: LargeTable): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirstOrThrow();
  return Number(row.max ?? 0);
}

export async function seedLargeCatalogue(
  db: Kysely<Database>,
  dialect: Dialect,
  size: LargeCatalogueSize = LARGE_CATALOGUE,
  progress: SeedProgress = { start() {}, advance() {} },
): Promise<LargeSeedOutcome> {
  const marker = await db
    .selectFrom('users')
    .select('id')
    .where('username', '=', generatedUsername(1))
    .executeTakeFirst();
  if (marker)
    return { added: false, reason: `the large catalogue is already there (user ${generatedUsername(1)})` };
  const demo = await db
    .selectFrom('users')
    .select('id')
    .where('username', '=', DEMO_USERNAME)
    .executeTakeFirst();
  const movieOne = await db.selectFrom('movies').select('id').where('id', '=', 1).executeTakeFirst();
  if (!demo || !movieOne) {
    return { added: false, reason: `the seed catalogue (movie 1 and user "${DEMO_USERNAME}") is missing` };
  }

  const existing = {
    users: await count(db, 'users'),
    movies: await count(db, 'movies'),
    reviews: await count(db, 'reviews'),
    watchlist_items: await count(db, 'watchlist_items'),
  };
  const newUsers = size.users - existing.users;
  const newMovies = size.movies - existing.movies;
  const newReviews = size.reviews - existing.reviews - size.movieOneReviews;
  const newWatchlist = size.watchlistItems - existing.watchlist_items - size.demoWatchlist;
  if (
    newUsers < size.movieOneReviews ||
    newMovies < size.demoWatchlist ||
    newReviews < 0 ||
    newWatchlist < 0
  ) {
    return { added: false, reason: 'the database is already larger than the large catalogue' };
  }
  // Each generated user reviews and lists distinct movies, drawn from far more movies than it needs.
  if (newReviews / newUsers > newMovies / 4 || newWatchlist / newUsers > newMovies / 4) {
    return { added: false, reason: 'too few movies for the reviews and watch-list rows asked for' };
  }

  const firstUserId = (await maxId(db, 'users')) + 1;
  const firstMovieId = (await maxId(db, 'movies')) + 1;
  const passwordHash = await hashPassword(GENERATED_PASSWORD);

  const users = Array.from({ length: newUsers }, (_, i) => ({
    id: firstUserId + i,
    username: generatedUsername(i + 1),
    email: `${generatedUsername(i + 1)}@example.com`,
    password_hash: passwordHash,
    role: 'USER' as const,
  }));

  const movieRandom = randomStream(1);
  const movies = Array.from({ length: newMovies }, (_, i) => {
    const r = movieRandom;
    return {
      id: firstMovieId + i,
      title: movieTitle(r),
      release_year: 1920 + Math.floor(Math.sqrt(r.next()) * 106),
      genre: r.next() < 0.01 ? null : (r.pick(GENRES) as GenreName),
      rating: r.next() < 0.02 ? null : Math.round(clamp(r.normal(6.4, 1.2), 1, 9.8) * 10) / 10,
      runtime: r.next() < 0.03 ? null : Math.round(clamp(r.normal(108, 18), 62, 220)),
      tmdb_id: r.next() < 0.5 ? 100_000 + firstMovieId + i : null,
    };
  });
  /** Popular movies get most reviews and list entries: index skewed towards the first generated ones. */
  const popularMovie = (r: Random) => Math.floor(r.next() ** 1.6 * newMovies);

  const reviewRandom = randomStream(2);
  const reviews: Insertable<ReviewsTable>[] = [];
  const review = (userIndex: number, movieId: number, rating: number | null) => {
    const r = reviewRandom;
    const score = Math.round(clamp(r.normal(rating ?? 6, 1.5), 1, 10));
    reviews.push({
      user_id: firstUserId + userIndex,
      movie_id: movieId,
      tv_show_id: null,
      score,
      comment: reviewComment(r, score),
      created_at: new Date(FIRST_REVIEW_DATE + Math.floor(r.next() * REVIEW_DATE_SPAN_MS)).toISOString(),
    });
  };
  const movieOneRating = (
    await db.selectFrom('movies').select('rating').where('id', '=', 1).executeTakeFirstOrThrow()
  ).rating;
  for (let u = 0; u < size.movieOneReviews; u++) review(u, 1, movieOneRating);
  for (let u = 0; u < newUsers; u++) {
    const quota = Math.floor(newReviews / newUsers) + (u < newReviews % newUsers ? 1 : 0);
    const seen = new Set<number>();
    while (seen.size < quota) {
      const index = popularMovie(reviewRandom);
      if (seen.has(index)) continue;
      seen.add(index);
      review(u, firstMovieId + index, (movies[index] as { rating: number | null }).rating);
    }
  }

  const listRandom = randomStream(3);
  const watchlist: { user_id: number; movie_id: number; tv_show_id: null; status: WatchStatusName }[] = [];
  const list = (userId: number, index: number) =>
    watchlist.push({
      user_id: userId,
      movie_id: firstMovieId + index,
      tv_show_id: null,
      status: listRandom.next() < 0.4 ? 'WATCHED' : 'WANT_TO_WATCH',
    });
  // The demo user's list: evenly spread generated movies (its seed entries are seed titles, so no clash).
  for (let i = 0; i < size.demoWatchlist; i++)
    list(demo.id, Math.floor((i * newMovies) / size.demoWatchlist));
  for (let u = 0; u < newUsers; u++) {
    const quota = Math.floor(newWatchlist / newUsers) + (u < newWatchlist % newUsers ? 1 : 0);
    const seen = new Set<number>();
    while (seen.size < quota) {
      const index = popularMovie(listRandom);
      if (seen.has(index)) continue;
      seen.add(index);
      list(firstUserId + u, index);
    }
  }
  // Review and list ids follow the table's current end, in the generated order (deterministic).
  const firstReviewId = (await maxId(db, 'reviews')) + 1;
  reviews.forEach((row, i) => (row.id = firstReviewId + i));
  const firstItemId = (await maxId(db, 'watchlist_items')) + 1;
  const items = watchlist.map((row, i) => ({ id: firstItemId + i, ...row }));

  progress.start(users.length + movies.length + reviews.length + items.length);
  await db.transaction().execute(async (trx) => {
    await insertRows(trx, dialect, 'users', users, progress);
    await insertRows(trx, dialect, 'movies', movies, progress);
    await insertRows(trx, dialect, 'reviews', reviews, progress);
    await insertRows(trx, dialect, 'watchlist_items', items, progress);
    if (dialect === 'postgres')
      await advanceIdSequences(trx, ['users', 'movies', 'reviews', 'watchlist_items']);
  });
  // Fresh statistics, so the planner knows the tables' new sizes (PostgreSQL's autovacuum would get there
  // in time; SQLite learns them only from ANALYZE). VACUUM also marks PostgreSQL's pages all-visible,
  // which lets counts read the indexes alone.
  if (dialect === 'postgres') await sql`vacuum analyze users, movies, reviews, watchlist_items`.execute(db);
  else await sql`analyze`.execute(db);
  return {
    added: true,
    rows: {
      users: users.length,
      movies: movies.length,
      reviews: reviews.length,
      watchlist_items: items.length,
    },
  };
}
