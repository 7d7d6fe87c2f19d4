/** The signed-in user's watch list and mood recommendations. */
import { MAX_RECOMMENDATIONS, MOOD_RULES, type MoodName } from '../../domain/moods.js';
import { alreadyThere, notFound, unauthorized } from '../../errors.js';
import { writeStatement } from '../../store/write-transaction.js';
import { isUniqueViolation } from '../../store/db-errors.js';
import type { ListedWatchlistItem } from '../../store/watchlist.js';
import type { WatchlistItem, WatchStatusName } from '../../store/tables.js';
import { actingUser, viewerAccount, type GraphQLContext } from '../context.js';
import { parseId } from '../parse-id.js';
import { resolveSubject, type SubjectInput } from './subjects.js';

/**
 * The owner a write on an entry is scoped to. A token that names its account gives the id without a
 * read: the write matches only that account's rows, and a deleted account has none (its entries go
 * with it), so whether it still exists is asked only when the write found nothing (missingEntry).
 */
async function ownerId(ctx: GraphQLContext, action: string): Promise<number> {
  return ctx.viewer?.userId ?? (await actingUser(ctx, action)).id;
}

/** A write that matched no entry: the account is gone (UNAUTHORIZED), or the entry is not its own. */
async function missingEntry(ctx: GraphQLContext, action: string, itemId: string): Promise<never> {
  await actingUser(ctx, action);
  // Another user's entry is reported exactly like a missing one, so ids reveal nothing.
  throw notFound('WatchlistItem', itemId);
}

export const watchlistResolvers = {
  Query: {
    async watchlist(_: unknown, _args: unknown, ctx: GraphQLContext) {
      const userId = ctx.viewer?.userId ?? null;
      if (userId === null) {
        const user = await actingUser(ctx, 'watchlist');
        return ctx.store.watchlist.ofUser(user.id);
      }
      // One statement: the account, its entries and their titles (what the entries' content resolves to).
      const items = await ctx.store.watchlist.listed(userId);
      if (!items) throw unauthorized('watchlist');
      return items;
    },
    async watchlistItem(_: unknown, args: { id: string }, ctx: GraphQLContext) {
      const user = await actingUser(ctx, 'watchlistItem');
      const item = await ctx.store.watchlist.findOwned(user.id, parseId(args.id, 'id'));
      // Another user's entry is reported exactly like a missing one, so ids reveal nothing.
      if (!item) throw notFound('WatchlistItem', args.id);
      return item;
    },
    async recommendMoviesForMood(
      _: unknown,
      args: { mood: MoodName; excludeWatched: boolean },
      ctx: GraphQLContext,
    ) {
      // excludeWatched only means something for a signed-in viewer; anonymous callers get the full list.
      const viewer = args.excludeWatched ? await viewerAccount(ctx) : undefined;
      const movies = await ctx.store.catalogue.recommend(
        MOOD_RULES[args.mood],
        viewer?.id ?? null,
        MAX_RECOMMENDATIONS,
      );
      for (const movie of movies) ctx.loaders.movie.prime(movie.id, movie);
      return movies;
    },
  },
  Mutation: {
    async addToWatchlist(
      _: unknown,
      args: { subject: SubjectInput; status?: WatchStatusName | null },
      ctx: GraphQLContext,
    ) {
      const user = await actingUser(ctx, 'addToWatchlist');
      const { subject, field, noun } = await resolveSubject(args.subject, ctx, 'subject');
      const duplicate = alreadyThere(`This ${noun} is already in your watch list`, field);
      try {
        const added = await writeStatement(ctx.store.handle, ctx, (trx) =>
          ctx.store.watchlist.add(user.id, subject, args.status ?? 'WANT_TO_WATCH', trx),
        );
        ctx.store.ownRowsChanged(user.id);
        return added;
      } catch (error) {
        // A title already on the list (or added by a concurrent call) trips the unique index.
        if (isUniqueViolation(error)) throw duplicate;
        throw error;
      }
    },
    async setWatchStatus(_: unknown, args: { itemId: string; status: WatchStatusName }, ctx: GraphQLContext) {
      const userId = await ownerId(ctx, 'setWatchStatus');
      const itemId = parseId(args.itemId, 'itemId');
      const item = await writeStatement(ctx.store.handle, ctx, (trx) =>
        ctx.store.watchlist.setStatus(userId, itemId, args.status, trx),
      );
      if (!item) return missingEntry(ctx, 'setWatchStatus', args.itemId);
      ctx.store.ownRowsChanged(userId);
      return item;
    },
    async removeFromWatchlist(_: unknown, args: { itemId: string }, ctx: GraphQLContext) {
      const userId = await ownerId(ctx, 'removeFromWatchlist');
      const itemId = parseId(args.itemId, 'itemId');
      const removed = await writeStatement(ctx.store.handle, ctx, (trx) =>
        ctx.store.watchlist.remove(userId, itemId, trx),
      );
      if (!removed) return missingEntry(ctx, 'removeFromWatchlist', args.itemId);
      ctx.store.ownRowsChanged(userId);
      return true;
    },
  },
  WatchlistItem: {
    content(item: WatchlistItem, _: unknown, ctx: GraphQLContext) {
      // A listed entry's title came with it: answered at once, not through a loader's promise.
      const listed = (item as Partial<ListedWatchlistItem>).listedContent;
      if (listed) return listed;
      return item.movie_id !== null
        ? ctx.loaders.movie.load(item.movie_id)
        : ctx.loaders.tvShow.load(item.tv_show_id as number);
    },
  },
};
