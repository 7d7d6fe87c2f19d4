/**
 * Loads the seed catalogue into an empty database with the catalogue's own ids (tests and docs rely on
 * them), then moves PostgreSQL's id sequences past them so new rows do not collide.
 */
import { readFile } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { hashPasswordOnThisThread, isPasswordHash } from '../auth/password.js';
import { GENRES, type Database } from './tables.js';
import type { Dialect } from './database.js';

const genre = z.enum(GENRES);
const castEntry = z.object({ personId: z.number().int(), characterName: z.string().nullable().optional() });
const seedSchema = z.object({
  users: z.array(
    z.object({
      id: z.number().int(),
      username: z.string(),
      email: z.string(),
      role: z.enum(['USER', 'ADMIN']),
      password: z.string(),
      /** `password`'s scrypt hash made in advance (src/auth/password.ts): used as it is when present. */
      passwordHash: z
        .string()
        .refine(isPasswordHash, 'not a scrypt hash as moviedb-mcp makes them (scrypt$16384$8$1$salt$key)')
        .optional(),
    }),
  ),
  people: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      birthYear: z.number().int().nullable().optional(),
      countryCode: z.string().nullable().optional(),
    }),
  ),
  movies: z.array(
    z.object({
      id: z.number().int(),
      title: z.string(),
      releaseYear: z.number().int(),
      genre: genre.nullable().optional(),
      rating: z.number().nullable().optional(),
      runtime: z.number().int().nullable().optional(),
      tmdbId: z.number().int().nullable().optional(),
      directorIds: z.array(z.number().int()).default([]),
      cast: z.array(castEntry).default([]),
    }),
  ),
  tvShows: z.array(
    z.object({
      id: z.number().int(),
      title: z.string(),
      genre: genre.nullable().optional(),
      rating: z.number().nullable().optional(),
      startYear: z.number().int(),
      endYear: z.number().int().nullable().optional(),
      seasons: z.number().int().nullable().optional(),
      creatorIds: z.array(z.number().int()).default([]),
      cast: z.array(castEntry).default([]),
      episodes: z
        .array(
          z.object({
            seasonNumber: z.number().int(),
            episodeNumber: z.number().int(),
            title: z.string(),
            runtime: z.number().int().nullable().optional(),
            airYear: z.number().int().nullable().optional(),
          }),
        )
        .default([]),
    }),
  ),
  reviews: z.array(
    z.object({
      id: z.number().int(),
      userId: z.number().int(),
      movieId: z.number().int().nullable().optional(),
      tvShowId: z.number().int().nullable().optional(),
      score: z.number().int(),
      comment: z.string().nullable().optional(),
      createdAt: z.string().optional(),
    }),
  ),
  watchlist: z.array(
    z.object({
      id: z.number().int(),
      userId: z.number().int(),
      movieId: z.number().int().nullable().optional(),
      tvShowId: z.number().int().nullable().optional(),
      status: z.enum(['WANT_TO_WATCH', 'WATCHED']),
    }),
  ),
});

/** Seed reviews carry no dates: give each a fixed one that grows with its id, so "newest first" is stable. */
function seedReviewDate(id: number): string {
  return new Date(Date.UTC(2024, 0, 1) + id * 3_600_000).toISOString();
}

async function insertInChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  // SQLite caps bound parameters per statement; 100 rows of a few columns stays well below it.
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100);
    if (chunk.length > 0) await insert(chunk);
  }
}

/** The seed file is not JSON or not a catalogue: restarting with the same file cannot help. */
export class SeedFileError extends Error {
  override name = 'SeedFileError';
}

/** The catalogue in `text`, or a SeedFileError naming where the file is wrong (at most three places). */
function parseSeed(text: string, seedFile: string): z.infer<typeof seedSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SeedFileError(`The seed file ${seedFile} is not JSON: ${(error as Error).message}`);
  }
  const parsed = seedSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const places = parsed.error.issues.slice(0, 3).map(
    (issue) =>
      `${
        issue.path
          .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
          .join('')
          .replace(/^\./, '') || '(top)'
      }: ${issue.message}`,
  );
  throw new SeedFileError(`The seed file ${seedFile} is not a valid catalogue: ${places.join('; ')}`);
}

export async function seedDatabase(db: Kysely<Database>, dialect: Dialect, seedFile: string): Promise<void> {
  const seed = parseSeed(await readFile(seedFile, 'utf8'), seedFile);
  // The project's seed carries its hashes: each hash made here takes a 16 MiB scrypt buffer that glibc
  // keeps resident afterwards (and then the next one, a login's, too: see docs/benchmarks.md). A seed
  // without them is hashed on this thread, one at a time, so that memory stays behind once, not once
  // per thread of the pool.
  const passwordHashes = seed.users.map((u) => u.passwordHash ?? hashPasswordOnThisThread(u.password));

  await insertInChunks(
    seed.users.map((u, i) => ({
      id: u.id,
      username: u.username,
      email: u.email,
      role: u.role,
      password_hash: passwordHashes[i] as string,
    })),
    (rows) => db.insertInto('users').values(rows).execute(),
  );
  await insertInChunks(
    seed.people.map((p) => ({
      id: p.id,
      name: p.name,
      birth_year: p.birthYear ?? null,
      country_code: p.countryCode ?? null,
    })),
    (rows) => db.insertInto('people').values(rows).execute(),
  );
  await insertInChunks(
    seed.movies.map((m) => ({
      id: m.id,
      title: m.title,
      release_year: m.releaseYear,
      genre: m.genre ?? null,
      rating: m.rating ?? null,
      runtime: m.runtime ?? null,
      tmdb_id: m.tmdbId ?? null,
    })),
    (rows) => db.insertInto('movies').values(rows).execute(),
  );
  await insertInChunks(
    seed.movies.flatMap((m) => m.directorIds.map((personId) => ({ movie_id: m.id, person_id: personId }))),
    (rows) => db.insertInto('movie_directors').values(rows).execute(),
  );
  await insertInChunks(
    seed.movies.flatMap((m) =>
      m.cast.map((c) => ({ movie_id: m.id, person_id: c.personId, character_name: c.characterName ?? null })),
    ),
    (rows) => db.insertInto('movie_cast').values(rows).execute(),
  );
  await insertInChunks(
    seed.tvShows.map((s) => ({
      id: s.id,
      title: s.title,
      genre: s.genre ?? null,
      rating: s.rating ?? null,
      start_year: s.startYear,
      end_year: s.endYear ?? null,
      seasons: s.seasons ?? null,
    })),
    (rows) => db.insertInto('tv_shows').values(rows).execute(),
  );
  await insertInChunks(
    seed.tvShows.flatMap((s) => s.creatorIds.map((personId) => ({ tv_show_id: s.id, person_id: personId }))),
    (rows) => db.insertInto('tv_show_creators').values(rows).execute(),
  );
  await insertInChunks(
    seed.tvShows.flatMap((s) =>
      s.cast.map((c) => ({
        tv_show_id: s.id,
        person_id: c.personId,
        character_name: c.characterName ?? null,
      })),
    ),
    (rows) => db.insertInto('tv_show_cast').values(rows).execute(),
  );
  await insertInChunks(
    seed.tvShows.flatMap((s) =>
      s.episodes.map((e) => ({
        tv_show_id: s.id,
        season_number: e.seasonNumber,
        episode_number: e.episodeNumber,
        title: e.title,
        runtime: e.runtime ?? null,
        air_year: e.airYear ?? null,
      })),
    ),
    (rows) => db.insertInto('episodes').values(rows).execute(),
  );
  await insertInChunks(
    seed.reviews.map((r) => ({
      id: r.id,
      user_id: r.userId,
      movie_id: r.movieId ?? null,
      tv_show_id: r.tvShowId ?? null,
      score: r.score,
      comment: r.comment ?? null,
      created_at: r.createdAt ?? seedReviewDate(r.id),
    })),
    (rows) => db.insertInto('reviews').values(rows).execute(),
  );
  await insertInChunks(
    seed.watchlist.map((w) => ({
      id: w.id,
      user_id: w.userId,
      movie_id: w.movieId ?? null,
      tv_show_id: w.tvShowId ?? null,
      status: w.status,
    })),
    (rows) => db.insertInto('watchlist_items').values(rows).execute(),
  );

  if (dialect === 'postgres') {
    await advanceIdSequences(db, [
      'people',
      'movies',
      'movie_cast',
      'tv_shows',
      'tv_show_cast',
      'episodes',
      'users',
      'reviews',
      'watchlist_items',
    ]);
  }
}

/** PostgreSQL: rows inserted with explicit ids leave a serial's sequence behind; move it past them. */
export async function advanceIdSequences(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
      db,
    );
  }
}
