/**
 * Schema migrations, identical for SQLite and PostgreSQL. Kysely's migrator takes a lock, so replicas
 * starting together migrate once. Seeding is a migration too: it runs exactly once, atomically.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './tables.js';
import type { Dialect } from './database.js';
import { seedDatabase } from './seed.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
type AnyDb = Kysely<any>;

function createSchema(dialect: Dialect): Migration {
  const idType = dialect === 'postgres' ? 'serial' : 'integer';
  const table = (db: AnyDb, name: string) =>
    db.schema
      .createTable(name)
      .addColumn('id', idType, (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      );
  const real = dialect === 'postgres' ? 'double precision' : 'real';

  return {
    async up(db: AnyDb) {
      await table(db, 'people')
        .addColumn('name', 'varchar(200)', (c) => c.notNull())
        .addColumn('birth_year', 'integer')
        .addColumn('country_code', 'varchar(2)')
        .execute();
      await table(db, 'movies')
        .addColumn('title', 'varchar(200)', (c) => c.notNull())
        .addColumn('release_year', 'integer', (c) => c.notNull())
        .addColumn('genre', 'varchar(20)')
        .addColumn('rating', real, (c) => c.check(sql`rating is null or (rating >= 0 and rating <= 10)`))
        .addColumn('runtime', 'integer')
        .addColumn('tmdb_id', 'integer')
        .execute();
      await db.schema
        .createTable('movie_directors')
        .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
        .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('movie_directors_pk', ['movie_id', 'person_id'])
        .execute();
      await table(db, 'movie_cast')
        .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
        .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
        .addColumn('character_name', 'varchar(200)')
        .execute();
      await table(db, 'tv_shows')
        .addColumn('title', 'varchar(200)', (c) => c.notNull())
        .addColumn('genre', 'varchar(20)')
        .addColumn('rating', real)
        .addColumn('start_year', 'integer', (c) => c.notNull())
        .addColumn('end_year', 'integer')
        .addColumn('seasons', 'integer')
        .execute();
      await db.schema
        .createTable('tv_show_creators')
        .addColumn('tv_show_id', 'integer', (c) => c.notNull().references('tv_shows.id').onDelete('cascade'))
        .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('tv_show_creators_pk', ['tv_show_id', 'person_id'])
        .execute();
      await table(db, 'tv_show_cast')
        .addColumn('tv_show_id', 'integer', (c) => c.notNull().references('tv_shows.id').onDelete('cascade'))
        .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
        .addColumn('character_name', 'varchar(200)')
        .execute();
      await table(db, 'episodes')
        .addColumn('tv_show_id', 'integer', (c) => c.notNull().references('tv_shows.id').onDelete('cascade'))
        .addColumn('season_number', 'integer', (c) => c.notNull())
        .addColumn('episode_number', 'integer', (c) => c.notNull())
        .addColumn('title', 'varchar(300)', (c) => c.notNull())
        .addColumn('runtime', 'integer')
        .addColumn('air_year', 'integer')
        .execute();
      await table(db, 'users')
        .addColumn('username', 'varchar(50)', (c) => c.notNull().unique())
        .addColumn('email', 'varchar(254)', (c) => c.notNull().unique())
        .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
        .addColumn('role', 'varchar(10)', (c) => c.notNull())
        .execute();
      // Exactly one subject per row; (user, title) is unique, so a racing duplicate trips the database.
      const subjectCheck = sql`(movie_id is null) <> (tv_show_id is null)`;
      await table(db, 'reviews')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('cascade'))
        .addColumn('tv_show_id', 'integer', (c) => c.references('tv_shows.id').onDelete('cascade'))
        .addColumn('score', 'integer', (c) => c.notNull().check(sql`score >= 1 and score <= 10`))
        .addColumn('comment', 'varchar(2000)')
        .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
        .addCheckConstraint('reviews_one_subject', subjectCheck)
        .execute();
      await table(db, 'watchlist_items')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('cascade'))
        .addColumn('tv_show_id', 'integer', (c) => c.references('tv_shows.id').onDelete('cascade'))
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addCheckConstraint('watchlist_one_subject', subjectCheck)
        .execute();

      const index = (name: string, tableName: string, columns: string[], unique = false) => {
        const builder = db.schema.createIndex(name).on(tableName).columns(columns);
        return (unique ? builder.unique() : builder).execute();
      };
      await index('reviews_user_movie_uq', 'reviews', ['user_id', 'movie_id'], true);
      await index('reviews_user_tv_show_uq', 'reviews', ['user_id', 'tv_show_id'], true);
      await index('watchlist_user_movie_uq', 'watchlist_items', ['user_id', 'movie_id'], true);
      await index('watchlist_user_tv_show_uq', 'watchlist_items', ['user_id', 'tv_show_id'], true);
      await index('reviews_movie_idx', 'reviews', ['movie_id']);
      await index('reviews_tv_show_idx', 'reviews', ['tv_show_id']);
      await index('movie_cast_movie_idx', 'movie_cast', ['movie_id']);
      await index('movie_cast_person_idx', 'movie_cast', ['person_id']);
      await index('movie_directors_person_idx', 'movie_directors', ['person_id']);
      await index('tv_show_cast_show_idx', 'tv_show_cast', ['tv_show_id']);
      await index('tv_show_cast_person_idx', 'tv_show_cast', ['person_id']);
      await index('tv_show_creators_person_idx', 'tv_show_creators', ['person_id']);
      await index('episodes_show_idx', 'episodes', ['tv_show_id', 'season_number', 'episode_number']);
      await index('movies_genre_rating_idx', 'movies', ['genre', 'rating']);
    },
  };
}

/**
 * Usernames are shown to everyone (a review names its reviewer), so two accounts whose names differ only
 * in case (`admin` and `ADMIN`) would let one pass for the other; sign-in failures are already counted
 * per name ignoring case. Usernames are ASCII (RegisterInput's @pattern), where both stores' lower()
 * agree. A database already holding such a pair refuses this migration and names the index.
 */
const usernamesUniqueIgnoringCase: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('users_username_lower_uq')
      .on('users')
      .unique()
      .expression(sql`lower(username)`)
      .execute();
  },
};

/**
 * Idempotency keys of writes (issue 10): a key's first use is recorded in the same transaction as the
 * write it guards, so two repeats can never both write; the answer is stored beside it once known. The
 * key is scoped to the caller (subject: at most 50 characters, see bearer.ts) and expires after 24 h.
 * Times are ISO-8601 UTC text in both dialects, as reviews.created_at, so comparisons agree.
 */
const idempotencyKeys: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('subject', 'varchar(64)', (c) => c.notNull())
      .addColumn('idempotency_key', 'varchar(128)', (c) => c.notNull())
      .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['subject', 'idempotency_key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_expires_idx')
      .on('idempotency_keys')
      .column('expires_at')
      .execute();
  },
};

export function createMigrationProvider(dialect: Dialect, seedFile: string): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_schema': createSchema(dialect),
        '0002_seed': {
          up: (db: AnyDb) => seedDatabase(db as Kysely<Database>, dialect, seedFile),
        },
        '0003_username_case_insensitive': usernamesUniqueIgnoringCase,
        '0005_idempotency_keys': idempotencyKeys,
      };
    },
  };
}
