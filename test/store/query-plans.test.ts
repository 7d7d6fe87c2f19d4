/**
 * The hot operations at catalogue scale, checked by their query plans: every statement they send is
 * explained, none may read a table in full, and each named statement must use the index (or FTS table)
 * made for it, in its order where it pages. A dropped or mismatched index fails here, long before a
 * large database is slow. The plans come from the seed catalogue; see test/helpers/query-plans.ts for
 * what that means on PostgreSQL.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/tables.js';
import { dialects, startTestServer, type TestDialect, type TestServer } from '../helpers/server.js';
import { explain, type Served, type Statement } from '../helpers/query-plans.js';

interface Expectation {
  /** Picks the statement(s) of the operation this is about. */
  statement: RegExp;
  /** The index or FTS table it must use, per store (absent: any, as long as nothing is read in full). */
  index: Partial<Record<TestDialect, string>>;
  /** The index finds the rows, or finds them in the statement's order (then nothing is sorted). */
  serves: Served;
}

interface HotOperation {
  name: string;
  query: string;
  signedIn?: boolean;
  /** Statements that read a whole table by nature (the total of an unfiltered page). */
  wholeTable?: RegExp;
  expect: Expectation[];
}

const HOT_OPERATIONS: HotOperation[] = [
  {
    name: 'recommendMoviesForMood',
    query: '{ recommendMoviesForMood(mood: HORROR) { id directors { name } } }',
    expect: [
      {
        statement: /order by "rating" desc, "id" asc limit/,
        index: { sqlite: 'movies_genre_rating_idx', postgres: 'movies_genre_rating_idx' },
        serves: 'order',
      },
    ],
  },
  {
    name: 'recommendMoviesForMood excluding watched movies',
    query: '{ recommendMoviesForMood(mood: COMFORT, excludeWatched: true) { id } }',
    signedIn: true,
    expect: [
      {
        statement: /order by "rating" desc, "id" asc limit/,
        index: { sqlite: 'movies_genre_rating_idx', postgres: 'movies_genre_rating_idx' },
        serves: 'order',
      },
    ],
  },
  {
    name: 'summarizeMovieReviews',
    query: '{ summarizeMovieReviews(movieId: "1") { reviewCount averageScore summary themes } }',
    expect: [
      { statement: /sum\("score"\)/, index: { sqlite: 'reviews_movie_score_idx' }, serves: 'condition' },
      {
        statement: /select "comment" from "reviews"/,
        index: { sqlite: 'reviews_movie_recent_idx', postgres: 'reviews_movie_recent_idx' },
        serves: 'order',
      },
    ],
  },
  {
    name: 'getMovie with its review count',
    query: '{ movie(id: "1") { title reviewCount directors { name } cast { person { name } } } }',
    expect: [{ statement: /count\(\*\) as "count" from "reviews"/, index: {}, serves: 'condition' }],
  },
  {
    name: 'searchMovies by title text',
    query: '{ movies(filter: { titleContains: "godfather" }) { totalElements content { id title } } }',
    expect: [
      {
        statement: /^select "id" from "movies" where/,
        index: { sqlite: 'movies_fts', postgres: 'movies_title_trgm_idx' },
        serves: 'condition',
      },
      {
        // SQLite counts in the FTS table alone.
        statement: /^select count\(\*\) as "?total"? from "?movies(_fts)?"? where/,
        index: { sqlite: 'movies_fts', postgres: 'movies_title_trgm_idx' },
        serves: 'condition',
      },
    ],
  },
  {
    name: 'search across movies, people and TV shows',
    query: '{ search(query: "god") { __typename } }',
    expect: [
      {
        statement: /from "movies"/,
        index: { sqlite: 'movies_fts', postgres: 'movies_title_trgm_idx' },
        serves: 'condition',
      },
      {
        statement: /from "people"/,
        index: { sqlite: 'people_fts', postgres: 'people_name_trgm_idx' },
        serves: 'condition',
      },
      {
        statement: /from "tv_shows"/,
        index: { sqlite: 'tv_shows_fts', postgres: 'tv_shows_title_trgm_idx' },
        serves: 'condition',
      },
    ],
  },
  {
    name: 'a deep page of one genre by title',
    query: '{ movies(filter: { genre: DRAMA }, page: 2, size: 3) { totalElements content { id title } } }',
    expect: [
      {
        statement: /^select "id" from "movies" where "genre" = \S+ order by/,
        index: { sqlite: 'movies_genre_title_idx', postgres: 'movies_genre_title_idx' },
        serves: 'order',
      },
      {
        statement: /^select count\(\*\) as "total" from "movies" where "genre"/,
        index: {},
        serves: 'condition',
      },
    ],
  },
  {
    name: 'a page of all movies by title',
    query: '{ movies(page: 2, size: 3) { totalElements content { id title } } }',
    wholeTable: /^select count\(\*\) as "total" from "movies"$/,
    expect: [
      {
        statement: /^select "id" from "movies" order by/,
        index: { sqlite: 'movies_title_idx', postgres: 'movies_title_idx' },
        serves: 'order',
      },
    ],
  },
  {
    name: 'myWatchlist',
    query: '{ watchlist { id status content { title } } }',
    signedIn: true,
    expect: [
      {
        // The entries of one account, with their titles, in one statement (put in order by the server).
        statement: /left join "watchlist_items" .* where "users"\."id" = \S+$/,
        index: {},
        serves: 'condition',
      },
    ],
  },
];

describe.each(dialects)('query plans of the hot operations on %s', (dialect) => {
  let server: TestServer;
  let statements: Statement[] = [];
  let token: string;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      onQuery: (sql, parameters) => statements.push({ sql, parameters }),
      // Each run must send its statements: a shared result served from the cache sends none.
      env: { RESULT_CACHE_MB: '0' },
    });
    token = await server.login('user', 'user123');
  });
  afterAll(() => server.stop());

  /** The reads an operation sends, captured as it runs through /graphql. */
  async function readsOf(operation: HotOperation): Promise<Statement[]> {
    statements = [];
    const response = await server.graphql(operation.query, undefined, operation.signedIn ? token : undefined);
    expect(response.body.errors).toBeUndefined();
    return statements.filter((s) => /^select/i.test(s.sql));
  }

  /** What is wrong with the plans of an operation's reads, in words; empty when all is well. */
  async function planProblems(
    operation: HotOperation,
    reads: Statement[],
    db: Kysely<Database> = server.store.handle.db,
  ): Promise<string[]> {
    const problems: string[] = [];
    const plansOf = async (chosen: Statement[], served: Served) => {
      try {
        return await explain(db, dialect, chosen, served);
      } catch (error) {
        problems.push(`cannot be planned: ${error instanceof Error ? error.message : String(error)}`);
        return [];
      }
    };
    for (const plan of await plansOf(reads, 'condition')) {
      if (plan.fullScans.length > 0 && !operation.wholeTable?.test(plan.sql)) {
        problems.push(`reads ${plan.fullScans.join(', ')} in full: ${plan.sql}\n${plan.text}`);
      }
    }
    for (const expectation of operation.expect) {
      const matching = reads.filter((statement) => expectation.statement.test(statement.sql));
      if (matching.length === 0) problems.push(`no statement matches ${expectation.statement}`);
      const index = expectation.index[dialect];
      for (const plan of await plansOf(matching, expectation.serves)) {
        if (index && !plan.indexes.includes(index))
          problems.push(`does not use ${index}: ${plan.sql}\n${plan.text}`);
        if (expectation.serves === 'order' && plan.sorts > 0) {
          problems.push(`sorts instead of reading ${index} in order: ${plan.sql}\n${plan.text}`);
        }
      }
    }
    return problems;
  }

  it.each(HOT_OPERATIONS.map((operation) => [operation.name, operation] as const))(
    '%s reads no table in full and uses its index',
    async (_name, operation) => {
      expect(await planProblems(operation, await readsOf(operation))).toEqual([]);
    },
  );

  it('each of those indexes and FTS tables, dropped, is reported by every operation that needs it', async () => {
    const needing = new Map<string, HotOperation[]>();
    for (const operation of HOT_OPERATIONS) {
      for (const expectation of operation.expect) {
        const index = expectation.index[dialect];
        if (index) needing.set(index, [...new Set([...(needing.get(index) ?? []), operation])]);
      }
    }
    const reads = new Map<HotOperation, Statement[]>();
    for (const operation of HOT_OPERATIONS) reads.set(operation, await readsOf(operation));
    const rollback = new Error('rollback');
    for (const [index, operations] of needing) {
      await server.store.handle.db
        .transaction()
        .execute(async (trx) => {
          // SQLite's FTS tables are tables; both stores undo the drop with the transaction.
          await sql`drop ${sql.raw(index.endsWith('_fts') ? 'table' : 'index')} ${sql.raw(index)}`.execute(
            trx,
          );
          for (const operation of operations) {
            const problems = await planProblems(operation, reads.get(operation)!, trx);
            expect(problems.join('\n'), `${operation.name} without ${index}`).toContain(index);
          }
          throw rollback;
        })
        .catch((error: unknown) => {
          if (error !== rollback) throw error;
        });
    }
    // And all is as it was.
    for (const operation of HOT_OPERATIONS)
      expect(await planProblems(operation, reads.get(operation)!)).toEqual([]);
  });
});
