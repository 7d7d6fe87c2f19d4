/** Movies, people and TV shows: lookups, pages, search and their relations. */
import { notFound, AppError } from '../../errors.js';
import type { Movie, MovieCast, Person, TvShow, TvShowCast, Episode } from '../../store/tables.js';
import type { MovieFilter, MovieSortField } from '../../store/catalogue.js';
import type { GraphQLContext } from '../context.js';
import { parseId } from '../parse-id.js';
import { toPage } from './pages.js';

const MAX_SEARCH_RESULTS = 50;

async function loadOrNotFound<T>(
  loader: { load(id: number): Promise<T | undefined> },
  entityType: string,
  rawId: string,
  field: string,
): Promise<T> {
  const found = await loader.load(parseId(rawId, field));
  if (!found) throw notFound(entityType, rawId);
  return found;
}

/** Tells union and interface members apart by a column only that table has. */
function typeOfRow(row: object): 'Movie' | 'TvShow' | 'Person' {
  if ('release_year' in row) return 'Movie';
  if ('start_year' in row) return 'TvShow';
  return 'Person';
}

export const catalogueResolvers = {
  Query: {
    movie: (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
      loadOrNotFound(ctx.loaders.movie, 'Movie', args.id, 'id'),
    async movies(
      _: unknown,
      args: {
        filter?: MovieFilter | null;
        page: number;
        size: number;
        sort?: { field: MovieSortField; order: 'ASC' | 'DESC' } | null;
      },
      ctx: GraphQLContext,
    ) {
      const { rows, total } = await ctx.store.catalogue.findMovies({
        ...(args.filter ?? {}),
        sortField: args.sort?.field ?? 'TITLE',
        descending: args.sort?.order === 'DESC',
        offset: args.page * args.size,
        limit: args.size,
      });
      for (const movie of rows) ctx.loaders.movie.prime(movie.id, movie);
      return toPage(rows, total, args.page, args.size);
    },
    async moviesByIds(_: unknown, args: { ids: string[] }, ctx: GraphQLContext) {
      const ids = args.ids.map((id) => parseId(id, 'ids'));
      const movies = await ctx.loaders.movie.loadMany(ids);
      const missing = args.ids.filter((_id, i) => !movies[i]);
      if (missing.length === 0) return movies;
      // One error for all unknown ids, placed on the first missing entry; the others are plain nulls.
      const error = new AppError('NOT_FOUND', `Entity Movie not found for ids: ${missing.join(', ')}`, {
        entityType: 'Movie',
        ids: missing,
      });
      let reported = false;
      return movies.map((movie) => {
        if (movie) return movie;
        if (reported) return null;
        reported = true;
        return error;
      });
    },
    person: (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
      loadOrNotFound(ctx.loaders.person, 'Person', args.id, 'id'),
    async people(_: unknown, args: { page: number; size: number }, ctx: GraphQLContext) {
      const { rows, total } = await ctx.store.catalogue.pageOfPeople(args.page * args.size, args.size);
      return toPage(rows, total, args.page, args.size);
    },
    tvShow: (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
      loadOrNotFound(ctx.loaders.tvShow, 'TvShow', args.id, 'id'),
    async tvShows(_: unknown, args: { page: number; size: number }, ctx: GraphQLContext) {
      const { rows, total } = await ctx.store.catalogue.pageOfTvShows(args.page * args.size, args.size);
      return toPage(rows, total, args.page, args.size);
    },
    async search(_: unknown, args: { query: string }, ctx: GraphQLContext) {
      const text = args.query.trim();
      if (text === '') return [];
      const { movies, people, shows } = await ctx.store.catalogue.search(text, MAX_SEARCH_RESULTS);
      return [...movies, ...people, ...shows].slice(0, MAX_SEARCH_RESULTS);
    },
  },
  SearchResult: { __resolveType: typeOfRow },
  Content: { __resolveType: typeOfRow },
  Movie: {
    releaseYear: (m: Movie) => m.release_year,
    tmdbId: (m: Movie) => m.tmdb_id,
    directors: (m: Movie, _: unknown, ctx: GraphQLContext) => ctx.loaders.directorsOfMovie.load(m.id),
    cast: (m: Movie, _: unknown, ctx: GraphQLContext) => ctx.loaders.castOfMovie.load(m.id),
    reviews: (m: Movie, _: unknown, ctx: GraphQLContext) => ctx.loaders.reviewsOfMovie.load(m.id),
    reviewCount: (m: Movie, _: unknown, ctx: GraphQLContext) => ctx.loaders.reviewCountOfMovie.load(m.id),
  },
  MovieCast: {
    characterName: (c: MovieCast) => c.character_name,
    person: (c: MovieCast, _: unknown, ctx: GraphQLContext) => ctx.loaders.person.load(c.person_id),
    movie: (c: MovieCast, _: unknown, ctx: GraphQLContext) => ctx.loaders.movie.load(c.movie_id),
  },
  Person: {
    birthYear: (p: Person) => p.birth_year,
    countryCode: (p: Person) => p.country_code,
    directedMovies: (p: Person, _: unknown, ctx: GraphQLContext) => ctx.loaders.moviesDirectedBy.load(p.id),
    movieCastCredits: (p: Person, _: unknown, ctx: GraphQLContext) => ctx.loaders.movieCreditsOf.load(p.id),
    createdShows: (p: Person, _: unknown, ctx: GraphQLContext) => ctx.loaders.showsCreatedBy.load(p.id),
    tvShowCastCredits: (p: Person, _: unknown, ctx: GraphQLContext) => ctx.loaders.showCreditsOf.load(p.id),
  },
  TvShow: {
    startYear: (s: TvShow) => s.start_year,
    endYear: (s: TvShow) => s.end_year,
    creators: (s: TvShow, _: unknown, ctx: GraphQLContext) => ctx.loaders.creatorsOfShow.load(s.id),
    cast: (s: TvShow, _: unknown, ctx: GraphQLContext) => ctx.loaders.castOfShow.load(s.id),
    episodes: (s: TvShow, _: unknown, ctx: GraphQLContext) => ctx.loaders.episodesOfShow.load(s.id),
    reviews: (s: TvShow, _: unknown, ctx: GraphQLContext) => ctx.loaders.reviewsOfShow.load(s.id),
  },
  TvShowCast: {
    characterName: (c: TvShowCast) => c.character_name,
    person: (c: TvShowCast, _: unknown, ctx: GraphQLContext) => ctx.loaders.person.load(c.person_id),
    tvShow: (c: TvShowCast, _: unknown, ctx: GraphQLContext) => ctx.loaders.tvShow.load(c.tv_show_id),
  },
  Episode: {
    seasonNumber: (e: Episode) => e.season_number,
    episodeNumber: (e: Episode) => e.episode_number,
    airYear: (e: Episode) => e.air_year,
  },
};
