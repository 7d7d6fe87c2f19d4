/** The seed catalogue, read independently of the server, as the oracle for expected answers. */
import { readFileSync } from 'node:fs';

export interface SeedMovie {
  id: number;
  title: string;
  releaseYear: number;
  genre: string | null;
  rating: number | null;
  runtime: number | null;
}
export interface SeedReview {
  id: number;
  movieId: number | null;
  tvShowId: number | null;
  userId: number;
  score: number;
}

export const seed = JSON.parse(
  readFileSync(new URL('../../seed/moviedb-seed.json', import.meta.url), 'utf8'),
) as {
  movies: SeedMovie[];
  reviews: SeedReview[];
  users: { id: number; username: string; password: string; role: string }[];
  tvShows: { id: number; title: string }[];
  watchlist: {
    id: number;
    userId: number;
    movieId: number | null;
    tvShowId: number | null;
    status: string;
  }[];
};
