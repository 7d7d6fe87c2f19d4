/** Watch-list entries, always scoped to their owner so one user never reaches another's rows. */
import type { Kysely } from 'kysely';
import type {
  Database,
  Movie,
  MoviesTable,
  TvShow,
  TvShowsTable,
  WatchlistItem,
  WatchlistItemsTable,
  WatchStatusName,
} from './tables.js';
import { prepareQuery } from './prepared-query.js';
import { subjectColumns, type Subject } from './subject.js';

/** Every column of a table, checked against its row type: a column added there must be added here. */
const columns =
  <Table>() =>
  <const Names extends readonly (keyof Table & string)[]>(
    names: Names & (Exclude<keyof Table, Names[number]> extends never ? unknown : never),
  ) =>
    names;
const ITEM_COLUMNS = columns<WatchlistItemsTable>()(['id', 'user_id', 'movie_id', 'tv_show_id', 'status']);
const MOVIE_COLUMNS = columns<MoviesTable>()([
  'id',
  'title',
  'release_year',
  'genre',
  'rating',
  'runtime',
  'tmdb_id',
]);
const SHOW_COLUMNS = columns<TvShowsTable>()([
  'id',
  'title',
  'genre',
  'rating',
  'start_year',
  'end_year',
  'seasons',
]);

/**
 * An entry of a listing, with the movie or show it names (read in the same statement): its content is
 * known without a loader, a batch or a promise per entry. A plain property, not a WeakMap beside the
 * entries (half a microsecond per entry to set, and a listing can have hundreds).
 */
export interface ListedWatchlistItem extends WatchlistItem {
  listedContent: Movie | TvShow | undefined;
}

/**
 * Picks the columns a prefix names out of a joined row, unprefixed. The prefixed names are made once:
 * this runs for every entry of every listing, where building them (and an entries array) per row was
 * a visible share of a call's allocations.
 */
function partOf<Row>(prefix: string, names: readonly string[]): (row: Record<string, unknown>) => Row {
  const pairs = names.map((name) => [name, `${prefix}${name}`] as const);
  return (row) => {
    const picked: Record<string, unknown> = {};
    for (const [name, prefixed] of pairs) picked[name] = row[prefixed];
    return picked as Row;
  };
}
const itemPart = partOf<WatchlistItem>('i_', ITEM_COLUMNS);
const moviePart = partOf<Movie>('m_', MOVIE_COLUMNS);
const showPart = partOf<TvShow>('s_', SHOW_COLUMNS);

export function createWatchlist(db: Kysely<Database>) {
  // The hot statements, compiled once (prepared-query.ts).
  const ofUser = prepareQuery(db, (q, userId: number) =>
    q.selectFrom('watchlist_items').selectAll().where('user_id', '=', userId).orderBy('id'),
  );
  const setStatus = prepareQuery(db, (q, userId: number, itemId: number, status: WatchStatusName) =>
    q
      .updateTable('watchlist_items')
      .set({ status })
      .where('id', '=', itemId)
      .where('user_id', '=', userId)
      .returningAll(),
  );
  // One round trip for the whole read: the account (no row: it no longer exists), its entries and each
  // entry's movie or show. The entries are put in order here: PostgreSQL sorts a join's rows by an
  // inner table's column after the fact (its plan cannot know the account is one row), and a list is
  // a few hundred entries at most.
  const listed = prepareQuery(db, (q, userId: number) =>
    q
      .selectFrom('users')
      .leftJoin('watchlist_items', 'watchlist_items.user_id', 'users.id')
      .leftJoin('movies', 'movies.id', 'watchlist_items.movie_id')
      .leftJoin('tv_shows', 'tv_shows.id', 'watchlist_items.tv_show_id')
      .select(ITEM_COLUMNS.map((name) => `watchlist_items.${name} as i_${name}` as const))
      .select(MOVIE_COLUMNS.map((name) => `movies.${name} as m_${name}` as const))
      .select(SHOW_COLUMNS.map((name) => `tv_shows.${name} as s_${name}` as const))
      .where('users.id', '=', userId),
  );
  return {
    ofUser: (userId: number) => ofUser.execute([userId]),
    /** The list, each entry with its title, or undefined when no account has this id. */
    async listed(userId: number): Promise<ListedWatchlistItem[] | undefined> {
      const rows = (await listed.execute([userId])) as Record<string, unknown>[];
      if (rows.length === 0) return undefined;
      const items: ListedWatchlistItem[] = [];
      for (const row of rows) {
        // The account's one row when its list is empty.
        if (row.i_id === null) continue;
        const item = itemPart(row) as ListedWatchlistItem;
        item.listedContent =
          row.m_id !== null ? moviePart(row) : row.s_id !== null ? showPart(row) : undefined;
        items.push(item);
      }
      items.sort((a, b) => a.id - b.id);
      return items;
    },
    findOwned: (userId: number, itemId: number) =>
      db
        .selectFrom('watchlist_items')
        .selectAll()
        .where('id', '=', itemId)
        .where('user_id', '=', userId)
        .executeTakeFirst(),
    // The writes below: once one has committed, its caller announces it (Store.ownRowsChanged), since
    // the trigger that would tell other replicas is silent on this server's connections (change-notices.ts).
    add: (
      userId: number,
      subject: Subject,
      status: WatchStatusName,
      trx: Kysely<Database>,
    ): Promise<WatchlistItem> =>
      trx
        .insertInto('watchlist_items')
        .values({ user_id: userId, ...subjectColumns(subject), status })
        .returningAll()
        .executeTakeFirstOrThrow(),
    setStatus: (userId: number, itemId: number, status: WatchStatusName, trx: Kysely<Database>) =>
      setStatus.executeTakeFirst([userId, itemId, status], trx),
    async remove(userId: number, itemId: number, trx: Kysely<Database>): Promise<boolean> {
      const result = await trx
        .deleteFrom('watchlist_items')
        .where('id', '=', itemId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
