/** Reviews: writing, deleting and the per-movie summary. */
import { summarizeReviews, THEME_SAMPLE_SIZE } from '../../domain/review-summary.js';
import { alreadyThere, forbidden, notFound } from '../../errors.js';
import { writeTransaction } from '../../store/write-transaction.js';
import { isUniqueViolation } from '../../store/db-errors.js';
import type { Review } from '../../store/tables.js';
import { actingUser, type GraphQLContext } from '../context.js';
import { parseId } from '../parse-id.js';
import { resolveSubject, type SubjectInput } from './subjects.js';

export const reviewResolvers = {
  Query: {
    async summarizeMovieReviews(_: unknown, args: { movieId: string }, ctx: GraphQLContext) {
      const id = parseId(args.movieId, 'movieId');
      if (!(await ctx.loaders.movie.load(id))) throw notFound('Movie', args.movieId);
      ctx.reportProgress?.('Loading reviews');
      const stats = await ctx.store.reviews.statsOfMovie(id, THEME_SAMPLE_SIZE);
      ctx.reportProgress?.('Summarising reviews');
      return { movieId: id, ...summarizeReviews(stats) };
    },
  },
  Mutation: {
    async createReview(
      _: unknown,
      args: { input: { subject: SubjectInput; score: number; comment?: string | null } },
      ctx: GraphQLContext,
    ) {
      const user = await actingUser(ctx, 'createReview');
      const { subject, field } = await resolveSubject(args.input.subject, ctx, 'input.subject');
      const duplicate = alreadyThere('You have already reviewed this title', `input.subject.${field}`);
      const comment = args.input.comment?.trim() || null;
      try {
        return await writeTransaction(ctx.store.handle, ctx, async (trx) => {
          if (await ctx.store.reviews.findByUserAndSubject(user.id, subject, trx)) throw duplicate;
          return ctx.store.reviews.create(
            { userId: user.id, subject, score: args.input.score, comment },
            trx,
          );
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicate;
        throw error;
      }
    },
    async deleteReview(_: unknown, args: { id: string }, ctx: GraphQLContext) {
      const user = await actingUser(ctx, 'deleteReview');
      const id = parseId(args.id, 'id');
      return writeTransaction(ctx.store.handle, ctx, async (trx) => {
        const review = await ctx.store.reviews.findById(id, trx);
        if (!review) throw notFound('Review', args.id);
        if (review.user_id !== user.id && user.role !== 'ADMIN')
          throw forbidden("deleteReview on another user's review");
        await ctx.store.reviews.delete(id, trx);
        return true;
      });
    },
  },
  Review: {
    createdAt: (r: Review) => r.created_at,
    user: (r: Review, _: unknown, ctx: GraphQLContext) => ctx.loaders.user.load(r.user_id),
  },
};
