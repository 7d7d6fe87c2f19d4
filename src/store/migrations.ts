/**
 * Schema migrations, identical for SQLite and PostgreSQL. Kysely's migrator takes a lock, so replicas
 * starting together migrate once. Seeding is a migration too: it runs exactly once, atomically.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './tables.js';
import type { Dialect } from './database.js';
import { accountChangeNotices, ownedRowNotices, ownedRowNoticesAnnouncedApart } from './change-notices.js';
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
 * Idempotency keys of writes (docs/mcp.md, Idempotent writes): a key's first use is recorded in the same transaction as the
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

/**
 * The built-in authorization server's clients, codes and refresh tokens (docs/security.md, Built-in
 * authorization server). Codes and tokens are stored as sha256 hashes, never as themselves; a grant id
 * ties a code to every refresh token rotated from it, so a replay revokes the whole family.
 */
const oauthGrants: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('client_json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'varchar(30)', (c) => c.notNull())
      .execute();
    for (const table of ['oauth_codes', 'oauth_refresh_tokens']) {
      const hash = table === 'oauth_codes' ? 'code_hash' : 'token_hash';
      let create = db.schema
        .createTable(table)
        .addColumn(hash, 'varchar(64)', (c) => c.primaryKey())
        .addColumn('client_id', 'varchar(64)', (c) =>
          c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
        )
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('grant_id', 'varchar(64)', (c) => c.notNull());
      if (table === 'oauth_codes')
        create = create
          .addColumn('redirect_uri', 'text', (c) => c.notNull())
          .addColumn('code_challenge', 'varchar(128)', (c) => c.notNull());
      await create
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(30)', (c) => c.notNull())
        .addColumn('used_at', 'varchar(30)')
        .execute();
      await db.schema.createIndex(`${table}_grant_idx`).on(table).column('grant_id').execute();
      await db.schema.createIndex(`${table}_expires_idx`).on(table).column('expires_at').execute();
    }
  },
};

/** The text columns searched by substring (`search`, `movies(filter: {titleContains})`). */
const SEARCHED_COLUMNS = [
  { table: 'movies', column: 'title' },
  { table: 'people', column: 'name' },
  { table: 'tv_shows', column: 'title' },
] as const;

/**
 * Substring search served by an index, with the case-insensitive `lower(column) like '%text%'` meaning
 * search always had (src/store/substring-match.ts):
 * - SQLite: an FTS5 table per searched column with the trigram tokenizer over `lower(column)`, case
 *   sensitive (any 3 characters are a token, so a phrase query is a substring query). Matching the
 *   lowered text against SQLite's own `lower()` of the column is exactly what that `like` does, so the
 *   FTS answer needs no second check. Contentless (it stores only its index), kept in step by triggers.
 * - PostgreSQL: a GIN pg_trgm index on `lower(column)`, which serves that `like` as it stands.
 *   Extension objects live in one schema of the database: pg_trgm is used wherever it is installed,
 *   or installed in `public`, never in this app's own schema (tests drop theirs with CASCADE, which
 *   would take the extension and every other schema's indexes with it).
 */
function substringSearch(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect === 'postgres') {
        const opclass = sql.raw(`${await trigramSchema(db)}.gin_trgm_ops`);
        for (const { table, column } of SEARCHED_COLUMNS) {
          await sql`create index ${sql.raw(`${table}_${column}_trgm_idx`)} on ${sql.table(table)} using gin (lower(${sql.ref(column)}) ${opclass})`.execute(
            db,
          );
        }
        return;
      }
      for (const { table, column } of SEARCHED_COLUMNS) {
        const fts = sql.raw(`${table}_fts`);
        const trigger = (suffix: string) => sql.raw(`${table}_fts_${suffix}`);
        const col = sql.raw(column);
        await sql`create virtual table ${fts} using fts5(${col}, content='', tokenize='trigram case_sensitive 1')`.execute(
          db,
        );
        // A contentless table forgets a row by being told the values it indexed.
        await sql`create trigger ${trigger('insert')} after insert on ${sql.table(table)} begin
          insert into ${fts}(rowid, ${col}) values (new.id, lower(new.${col})); end`.execute(db);
        await sql`create trigger ${trigger('delete')} after delete on ${sql.table(table)} begin
          insert into ${fts}(${fts}, rowid, ${col}) values ('delete', old.id, lower(old.${col})); end`.execute(
          db,
        );
        await sql`create trigger ${trigger('update')} after update of ${col} on ${sql.table(table)} begin
          insert into ${fts}(${fts}, rowid, ${col}) values ('delete', old.id, lower(old.${col}));
          insert into ${fts}(rowid, ${col}) values (new.id, lower(new.${col})); end`.execute(db);
        await sql`insert into ${fts}(rowid, ${col}) select id, lower(${col}) from ${sql.table(table)}`.execute(
          db,
        );
      }
    },
  };
}

/** The schema holding pg_trgm, installing it in `public` when no schema has it yet. */
async function trigramSchema(db: AnyDb): Promise<string> {
  const find = () =>
    sql<{
      schema: string;
    }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(
      db,
    );
  let found = (await find()).rows[0];
  if (!found) {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    found = (await find()).rows[0];
  }
  if (!found) throw new Error('pg_trgm could not be installed');
  return `"${found.schema.replace(/"/g, '""')}"`;
}

/**
 * Indexes for the hot queries at catalogue scale (100,000 movies, 1,000,000 reviews), each matching its
 * query's shape exactly (src/store/catalogue.ts, reviews.ts, watchlist.ts; test/store/query-plans.test.ts
 * checks the plans). Titles sort byte-wise as `lower(title)` (`collate "C"` on PostgreSQL).
 */
function queryIndexes(dialect: Dialect): Migration {
  // PostgreSQL reads an index alone (an index-only scan) only when it holds every column the query
  // names: `lower(title)` is not `title`, so the title rides along (SQLite reads expressions as stored).
  const [titleKey, withTitle] =
    dialect === 'postgres'
      ? [sql`lower(title) collate "C"`, sql` include (title)`]
      : [sql`lower(title)`, sql``];
  return {
    async up(db: AnyDb) {
      // Paging by title, all movies or one genre: a page's ids come from the index alone, in order.
      await sql`create index movies_title_idx on movies (${titleKey}, id)${withTitle}`.execute(db);
      await sql`create index movies_genre_title_idx on movies (genre, ${titleKey}, id)${withTitle}`.execute(
        db,
      );
      // Recommendations read each genre's best rated first and stop at ten (rating desc, id asc).
      await db.schema.dropIndex('movies_genre_rating_idx').execute();
      await sql`create index movies_genre_rating_idx on movies (genre, rating desc, id)`.execute(db);
      // A movie's review count and score total from the index alone; its newest reviews in order.
      await db.schema.dropIndex('reviews_movie_idx').execute();
      await sql`create index reviews_movie_score_idx on reviews (movie_id, score)`.execute(db);
      await sql`create index reviews_movie_recent_idx on reviews (movie_id, created_at, id)`.execute(db);
      // A user's watch list in id order.
      await sql`create index watchlist_user_idx on watchlist_items (user_id, id)`.execute(db);
    },
  };
}

export function createMigrationProvider(dialect: Dialect, seedFile: string): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_schema': createSchema(dialect),
        '0002_seed': {
          up: (db: AnyDb) => seedDatabase(db as Kysely<Database>, dialect, seedFile),
        },
        '0003_username_case_insensitive': usernamesUniqueIgnoringCase,
        '0004_substring_search': substringSearch(dialect),
        '0005_query_indexes': queryIndexes(dialect),
        '0006_idempotency_keys': idempotencyKeys,
        '0007_oauth_grants': oauthGrants,
        '0008_account_change_notices': accountChangeNotices(dialect),
        '0009_owned_row_notices': ownedRowNotices(dialect),
        '0010_owned_row_notices_announced_apart': ownedRowNoticesAnnouncedApart(dialect),
      };
    },
  };
}
