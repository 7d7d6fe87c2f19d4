/** Row shapes of every table, as kysely sees them. Column names are snake_case in SQL. */
import type { Generated, Insertable, Selectable } from 'kysely';
import type { RoleName } from '../auth/identity.js';

export const GENRES = [
  'ACTION',
  'COMEDY',
  'CRIME',
  'DRAMA',
  'FANTASY',
  'HORROR',
  'MYSTERY',
  'ROMANCE',
  'SCIFI',
  'THRILLER',
  'WAR',
  'WESTERN',
] as const;
export type GenreName = (typeof GENRES)[number];
export type { RoleName };
export type WatchStatusName = 'WANT_TO_WATCH' | 'WATCHED';

interface PeopleTable {
  id: Generated<number>;
  name: string;
  birth_year: number | null;
  country_code: string | null;
}
export interface MoviesTable {
  id: Generated<number>;
  title: string;
  release_year: number;
  genre: GenreName | null;
  rating: number | null;
  runtime: number | null;
  tmdb_id: number | null;
}
interface MovieDirectorsTable {
  movie_id: number;
  person_id: number;
}
interface MovieCastTable {
  id: Generated<number>;
  movie_id: number;
  person_id: number;
  character_name: string | null;
}
export interface TvShowsTable {
  id: Generated<number>;
  title: string;
  genre: GenreName | null;
  rating: number | null;
  start_year: number;
  end_year: number | null;
  seasons: number | null;
}
interface TvShowCreatorsTable {
  tv_show_id: number;
  person_id: number;
}
interface TvShowCastTable {
  id: Generated<number>;
  tv_show_id: number;
  person_id: number;
  character_name: string | null;
}
interface EpisodesTable {
  id: Generated<number>;
  tv_show_id: number;
  season_number: number;
  episode_number: number;
  title: string;
  runtime: number | null;
  air_year: number | null;
}
interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string;
  password_hash: string;
  role: RoleName;
}
export interface ReviewsTable {
  id: Generated<number>;
  user_id: number;
  movie_id: number | null;
  tv_show_id: number | null;
  score: number;
  comment: string | null;
  /** ISO-8601 UTC text in both dialects, so ordering and round-trips are identical. */
  created_at: string;
}
export interface WatchlistItemsTable {
  id: Generated<number>;
  user_id: number;
  movie_id: number | null;
  tv_show_id: number | null;
  status: WatchStatusName;
}
/** A write's idempotency key (src/store/idempotency-keys.ts); `result` is null until the answer is known. */
/** A client registered with the built-in authorization server (src/oauth/oauth-store.ts). */
interface OAuthClientsTable {
  client_id: string;
  /** The RFC 7591 client information as registered, JSON. */
  client_json: string;
  created_at: string;
}
/** An authorization code, kept as a hash; `used_at` is set by its one exchange. */
interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: number;
  /** Shared by the code and every refresh token rotated from it: a replay revokes them all. */
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  expires_at: string;
  used_at: string | null;
}
/** A refresh token, kept as a hash; `used_at` is set when it is rotated. */
export interface OAuthRefreshTokensTable {
  token_hash: string;
  client_id: string;
  user_id: number;
  grant_id: string;
  scope: string;
  resource: string;
  expires_at: string;
  used_at: string | null;
}
interface IdempotencyKeysTable {
  subject: string;
  idempotency_key: string;
  /** sha256 of the canonical operation and arguments: a repeat must match it. */
  fingerprint: string;
  /** The JSON of the original answer. */
  result: string | null;
  created_at: string;
  expires_at: string;
}

export interface Database {
  people: PeopleTable;
  movies: MoviesTable;
  movie_directors: MovieDirectorsTable;
  movie_cast: MovieCastTable;
  tv_shows: TvShowsTable;
  tv_show_creators: TvShowCreatorsTable;
  tv_show_cast: TvShowCastTable;
  episodes: EpisodesTable;
  users: UsersTable;
  reviews: ReviewsTable;
  watchlist_items: WatchlistItemsTable;
  idempotency_keys: IdempotencyKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
}

export type Person = Selectable<PeopleTable>;
export type Movie = Selectable<MoviesTable>;
export type MovieCast = Selectable<MovieCastTable>;
export type TvShow = Selectable<TvShowsTable>;
export type TvShowCast = Selectable<TvShowCastTable>;
export type Episode = Selectable<EpisodesTable>;
export type User = Selectable<UsersTable>;
export type Review = Selectable<ReviewsTable>;
export type WatchlistItem = Selectable<WatchlistItemsTable>;
export type IdempotencyKey = Selectable<IdempotencyKeysTable>;
export type NewMovie = Insertable<MoviesTable>;
