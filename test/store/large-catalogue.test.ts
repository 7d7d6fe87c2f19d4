import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import {
  GENERATED_PASSWORD,
  seedLargeCatalogue,
  type LargeCatalogueSize,
} from '../../scripts/large-catalogue.js';
import { extractThemes, THEME_SAMPLE_SIZE } from '../../src/domain/review-summary.js';
import type { Database } from '../../src/store/tables.js';
import { GENRES } from '../../src/store/tables.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

/** The large catalogue's shape at a size a test can afford (the real one is 100,000 movies). */
const SIZE: LargeCatalogueSize = {
  movies: 800,
  reviews: 6_000,
  users: 400,
  watchlistItems: 2_000,
  movieOneReviews: 150,
  demoWatchlist: 25,
};

/** Everything generated, in id order, except the one random thing (the shared password hash's salt). */
async function digest(db: Kysely<Database>): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(await db.selectFrom('movies').selectAll().orderBy('id').execute()));
  hash.update(
    JSON.stringify(
      await db.selectFrom('users').select(['id', 'username', 'email', 'role']).orderBy('id').execute(),
    ),
  );
  hash.update(JSON.stringify(await db.selectFrom('reviews').selectAll().orderBy('id').execute()));
  hash.update(JSON.stringify(await db.selectFrom('watchlist_items').selectAll().orderBy('id').execute()));
  return hash.digest('hex');
}

describe.each(dialects)('npm run seed:large on %s', (dialect) => {
  let server: TestServer;
  let first: Awaited<ReturnType<typeof seedLargeCatalogue>>;
  /** The database right after seeding, before the tests below write to it. */
  let seeded: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    first = await seedLargeCatalogue(server.store.handle.db, server.store.handle.dialect, SIZE);
    seeded = await digest(server.store.handle.db);
  });
  afterAll(() => server.stop());

  it('fills every table to its total, keeping the seed catalogue, and a second run adds nothing', async () => {
    expect(first.added).toBe(true);
    expect(await server.count('movies')).toBe(SIZE.movies);
    expect(await server.count('reviews')).toBe(SIZE.reviews);
    expect(await server.count('users')).toBe(SIZE.users);
    expect(await server.count('watchlist_items')).toBe(SIZE.watchlistItems);
    const again = await seedLargeCatalogue(server.store.handle.db, server.store.handle.dialect, SIZE);
    expect(again).toMatchObject({ added: false, reason: expect.stringContaining('already there') });
    expect(await server.count('reviews')).toBe(SIZE.reviews);

    const shawshank = await server.graphql<{ movie: { title: string; reviewCount: number } }>(
      '{ movie(id: "1") { title reviewCount } }',
    );
    const seedReviewsOfOne = seed.reviews.filter((r) => r.movieId === 1).length;
    expect(shawshank.body.data?.movie).toEqual({
      title: 'The Shawshank Redemption',
      reviewCount: SIZE.movieOneReviews + seedReviewsOfOne,
    });
  });

  it('summarizes movie 1 from SQL: exact count and average over every review, themes from the newest comments', async () => {
    const db = server.store.handle.db;
    const all = await db
      .selectFrom('reviews')
      .select(['score', 'comment'])
      .where('movie_id', '=', 1)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const response = await server.graphql<{
      summarizeMovieReviews: { reviewCount: number; averageScore: number; themes: string[] };
    }>('{ summarizeMovieReviews(movieId: "1") { reviewCount averageScore themes } }');
    const summary = response.body.data!.summarizeMovieReviews;
    expect(summary.reviewCount).toBe(all.length);
    expect(summary.averageScore).toBe(all.reduce((sum, r) => sum + r.score, 0) / all.length);
    const newest = extractThemes(
      all
        .map((r) => r.comment)
        .filter((comment) => comment !== null)
        .slice(0, THEME_SAMPLE_SIZE),
    );
    expect(summary.themes).toEqual(newest);
  });

  it('generates rows the schema accepts: genres, years, ratings, runtimes and titles within bounds', async () => {
    const db = server.store.handle.db;
    const movies = await db.selectFrom('movies').selectAll().where('id', '>', seed.movies.length).execute();
    for (const movie of movies) {
      expect(movie.genre === null || (GENRES as readonly string[]).includes(movie.genre)).toBe(true);
      expect(movie.release_year).toBeGreaterThanOrEqual(1888);
      expect(movie.release_year).toBeLessThanOrEqual(2100);
      expect(movie.rating === null || (movie.rating >= 0 && movie.rating <= 10)).toBe(true);
      expect(movie.runtime === null || movie.runtime > 0).toBe(true);
      expect(movie.title.length).toBeGreaterThan(0);
      expect(movie.title.length).toBeLessThanOrEqual(200);
    }
    const scores = await db
      .selectFrom('reviews')
      .select((eb) => [eb.fn.min('score').as('low'), eb.fn.max('score').as('high')])
      .executeTakeFirstOrThrow();
    expect([Number(scores.low), Number(scores.high)]).toEqual([1, 10]);
  });

  it('generated users sign in with the shared password; the demo user sees its long watch list', async () => {
    const viewer = await server.login('viewer00001', GENERATED_PASSWORD);
    const own = await server.graphql<{ watchlist: unknown[] }>('{ watchlist { id } }', undefined, viewer);
    expect(own.body.data?.watchlist.length).toBeGreaterThan(0);
    const demo = await server.login('user', 'user123');
    const list = await server.graphql<{ watchlist: unknown[] }>('{ watchlist { id } }', undefined, demo);
    const seedEntries = seed.watchlist.filter((w) => w.userId === 2).length;
    expect(list.body.data?.watchlist).toHaveLength(SIZE.demoWatchlist + seedEntries);
  });

  it('leaves the id sequences past the generated rows: new users, reviews and entries still insert', async () => {
    const { token } = await server.newUser();
    const review = await server.graphql(
      'mutation { createReview(input: { subject: { movieId: "700" }, score: 7 }) { id } }',
      undefined,
      token,
    );
    expect(review.body.errors).toBeUndefined();
    const added = await server.graphql(
      'mutation { addToWatchlist(subject: { movieId: "701" }) { id } }',
      undefined,
      token,
    );
    expect(added.body.errors).toBeUndefined();
  });

  it('is deterministic: a fresh SQLite database gets exactly the same rows', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-large-'));
    const other = await openDatabase({
      dataDir,
      poolSize: 1,
      seedFile: path.resolve('seed/moviedb-seed.json'),
    });
    try {
      await seedLargeCatalogue(other.db, other.dialect, SIZE);
      expect(await digest(other.db)).toBe(seeded);
    } finally {
      await other.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
