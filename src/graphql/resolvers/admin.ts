/** Catalogue writes: admins only (docs/contract.md, Identity), as @auth(requires: ADMIN) in the schema enforces. */
import { notFound } from '../../errors.js';
import type { GenreName, NewMovie } from '../../store/tables.js';
import { writeTransaction } from '../../store/write-transaction.js';
import type { GraphQLContext } from '../context.js';
import { parseId } from '../parse-id.js';

interface MovieFields {
  title?: string | null;
  releaseYear?: number | null;
  genre?: GenreName | null;
  rating?: number | null;
  runtime?: number | null;
  tmdbId?: number | null;
  directorIds?: string[] | null;
}

/** Column values for the fields present in the input; absent fields are left out, explicit nulls kept. */
function movieColumns(input: MovieFields): Partial<NewMovie> {
  const columns: Partial<NewMovie> = {};
  if (input.title != null) columns.title = input.title;
  if (input.releaseYear != null) columns.release_year = input.releaseYear;
  if (input.genre !== undefined) columns.genre = input.genre;
  if (input.rating !== undefined) columns.rating = input.rating;
  if (input.runtime !== undefined) columns.runtime = input.runtime;
  if (input.tmdbId !== undefined) columns.tmdb_id = input.tmdbId;
  return columns;
}

/** Director ids must name existing people: NOT_FOUND beats a foreign-key error. */
async function resolveDirectors(
  ids: string[] | null | undefined,
  ctx: GraphQLContext,
): Promise<number[] | undefined> {
  if (ids == null) return undefined;
  const parsed = [...new Set(ids.map((id) => parseId(id, 'input.directorIds')))];
  const people = await ctx.loaders.person.loadMany(parsed);
  const missing = parsed.find((_id, i) => !people[i]);
  if (missing !== undefined) throw notFound('Person', missing);
  return parsed;
}

export const adminResolvers = {
  Mutation: {
    async createMovie(
      _: unknown,
      args: { input: MovieFields & { title: string; releaseYear: number } },
      ctx: GraphQLContext,
    ) {
      const directorIds = (await resolveDirectors(args.input.directorIds, ctx)) ?? [];
      const columns = movieColumns(args.input);
      return writeTransaction(ctx.store.handle, ctx, (trx) =>
        ctx.store.catalogue.createMovie(
          { ...columns, title: args.input.title, release_year: args.input.releaseYear },
          directorIds,
          trx,
        ),
      );
    },
    async updateMovie(_: unknown, args: { id: string; input: MovieFields }, ctx: GraphQLContext) {
      const id = parseId(args.id, 'id');
      const directorIds = await resolveDirectors(args.input.directorIds, ctx);
      const updated = await writeTransaction(ctx.store.handle, ctx, (trx) =>
        ctx.store.catalogue.updateMovie(id, movieColumns(args.input), directorIds, trx),
      );
      if (!updated) throw notFound('Movie', args.id);
      return updated;
    },
    async deleteMovie(_: unknown, args: { id: string }, ctx: GraphQLContext) {
      const id = parseId(args.id, 'id');
      const deleted = await writeTransaction(ctx.store.handle, ctx, (trx) =>
        ctx.store.catalogue.deleteMovie(id, trx),
      );
      if (!deleted) throw notFound('Movie', args.id);
      // Its watch-list entries went with it, whoever's they were.
      ctx.store.ownRowsChanged(null);
      return true;
    },
  },
};
