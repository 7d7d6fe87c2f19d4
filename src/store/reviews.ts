/** Reviews: per-title lists and counts for loaders, and one-per-user writes. */
import type { Kysely } from 'kysely';
import type { Database, Review } from './tables.js';
import { subjectColumn, subjectColumns, type Subject } from './subject.js';

export function createReviews(db: Kysely<Database>) {
  return {
    /** Newest first; id breaks ties between reviews written in the same millisecond. */
    ofMovies: (movieIds: readonly number[]) =>
      db
        .selectFrom('reviews')
        .selectAll()
        .where('movie_id', 'in', [...movieIds])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),
    ofShows: (showIds: readonly number[]) =>
      db
        .selectFrom('reviews')
        .selectAll()
        .where('tv_show_id', 'in', [...showIds])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute(),
    countsForMovies: (movieIds: readonly number[]) =>
      db
        .selectFrom('reviews')
        .select(['movie_id', (eb) => eb.fn.countAll().as('count')])
        .where('movie_id', 'in', [...movieIds])
        .groupBy('movie_id')
        .execute(),
    /**
     * What a movie's summary needs (src/domain/review-summary.ts), without reading every review: count
     * and score total from reviews_movie_score_idx alone, and the newest `sampleSize` comments through
     * reviews_movie_recent_idx.
     */
    async statsOfMovie(
      movieId: number,
      sampleSize: number,
    ): Promise<{ reviewCount: number; scoreTotal: number; recentComments: (string | null)[] }> {
      const [totals, recent] = await Promise.all([
        db
          .selectFrom('reviews')
          .select((eb) => [eb.fn.countAll().as('count'), eb.fn.sum('score').as('total')])
          .where('movie_id', '=', movieId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('reviews')
          .select('comment')
          .where('movie_id', '=', movieId)
          .where('comment', 'is not', null)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(sampleSize)
          .execute(),
      ]);
      return {
        // PostgreSQL answers count and sum of integers as bigint text: exact, and exact as a number here.
        reviewCount: Number(totals.count),
        scoreTotal: Number(totals.total ?? 0),
        recentComments: recent.map((r) => r.comment),
      };
    },
    findById: (id: number, trx: Kysely<Database> = db) =>
      trx.selectFrom('reviews').selectAll().where('id', '=', id).executeTakeFirst(),
    findByUserAndSubject: (userId: number, subject: Subject, trx: Kysely<Database> = db) =>
      trx
        .selectFrom('reviews')
        .select('id')
        .where('user_id', '=', userId)
        .where(subjectColumn(subject), '=', subject.id)
        .executeTakeFirst(),
    create: (
      review: { userId: number; subject: Subject; score: number; comment: string | null },
      trx: Kysely<Database>,
    ): Promise<Review> =>
      trx
        .insertInto('reviews')
        .values({
          user_id: review.userId,
          ...subjectColumns(review.subject),
          score: review.score,
          comment: review.comment,
          created_at: new Date().toISOString(),
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    async delete(id: number, trx: Kysely<Database>): Promise<boolean> {
      const result = await trx.deleteFrom('reviews').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
