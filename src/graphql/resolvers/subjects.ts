/** Turns a @oneOf subject input into a checked Subject: a parsed id of a title that exists. */
import { notFound } from '../../errors.js';
import type { Subject } from '../../store/subject.js';
import type { GraphQLContext } from '../context.js';
import { parseId } from '../parse-id.js';

export interface SubjectInput {
  movieId?: string | null;
  tvShowId?: string | null;
}

export interface CheckedSubject {
  subject: Subject;
  /** The input key, named in BAD_REQUEST errors about this subject. */
  field: 'movieId' | 'tvShowId';
  /** How a message names the title: "movie" or "TV show". */
  noun: string;
}

/** @oneOf has already guaranteed exactly one non-null key. */
export async function resolveSubject(
  input: SubjectInput,
  ctx: GraphQLContext,
  path: string,
): Promise<CheckedSubject> {
  if (input.movieId != null) {
    const id = parseId(input.movieId, `${path}.movieId`);
    if (!(await ctx.loaders.movie.load(id))) throw notFound('Movie', input.movieId);
    return { subject: { kind: 'movie', id }, field: 'movieId', noun: 'movie' };
  }
  const raw = input.tvShowId as string;
  const id = parseId(raw, `${path}.tvShowId`);
  if (!(await ctx.loaders.tvShow.load(id))) throw notFound('TvShow', raw);
  return { subject: { kind: 'tvShow', id }, field: 'tvShowId', noun: 'TV show' };
}
