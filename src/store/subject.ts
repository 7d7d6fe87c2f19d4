/** A reviewable or watchable title: exactly one of a movie or a TV show. */
export type Subject = { kind: 'movie'; id: number } | { kind: 'tvShow'; id: number };

export function subjectColumns(subject: Subject): { movie_id: number | null; tv_show_id: number | null } {
  return subject.kind === 'movie'
    ? { movie_id: subject.id, tv_show_id: null }
    : { movie_id: null, tv_show_id: subject.id };
}

export function subjectColumn(subject: Subject): 'movie_id' | 'tv_show_id' {
  return subject.kind === 'movie' ? 'movie_id' : 'tv_show_id';
}
