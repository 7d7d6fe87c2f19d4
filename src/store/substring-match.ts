/**
 * "Contains this text, ignoring case" for the searched columns (SEARCHED_COLUMNS in migrations.ts), as an
 * index-served condition. What matches is `lower(column) like '%text%'` with the text lowered and taken
 * literally, as it always was; the indexes only make it fast:
 * - PostgreSQL: the pg_trgm GIN index on `lower(column)` serves that `like` as it stands.
 * - SQLite: the FTS5 trigram table holds `lower(column)`, matched case-sensitively against the lowered
 *   text as one phrase: the same rows as the `like` (whose case-folding covers only the ASCII letters
 *   that `lower()` already folded). A trigram needs 3 characters: shorter text falls back to the `like`
 *   (a scan; such short texts match much of the catalogue anyway).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';

export type SearchedTable = 'movies' | 'people' | 'tv_shows';

/** `%`, `_` and `\` are LIKE wildcards; escape them so user text matches literally. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * SQLite: the FTS query that finds the rows containing `text` (one quoted phrase, a `"` inside doubled),
 * or undefined when the text is too short for a trigram.
 */
export function ftsPhrase(dialect: Dialect, text: string): string | undefined {
  const lowered = text.toLowerCase();
  if (dialect !== 'sqlite' || [...lowered].length < 3) return undefined;
  return `"${lowered.replace(/"/g, '""')}"`;
}

export function substringMatch(
  dialect: Dialect,
  table: SearchedTable,
  column: 'title' | 'name',
  text: string,
): RawBuilder<boolean> {
  const phrase = ftsPhrase(dialect, text);
  if (phrase === undefined) {
    return sql<boolean>`lower(${sql.ref(`${table}.${column}`)}) like ${likePattern(text)} escape '\\'`;
  }
  const fts = sql.raw(`${table}_fts`);
  return sql<boolean>`${sql.ref(`${table}.id`)} in (select rowid from ${fts} where ${fts} match ${phrase})`;
}
