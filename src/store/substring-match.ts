/**
 * "Contains this text, ignoring case" for the searched columns (SEARCHED_COLUMNS in migrations.ts), as an
 * index-served condition. What matches is defined by `lower(column) like '%text%'` (text taken literally),
 * in both stores, as it always was; the indexes only find the candidates fast:
 * - PostgreSQL: the pg_trgm GIN index on `lower(column)` serves that `like` as it stands.
 * - SQLite: the FTS5 trigram table first narrows to rows containing the text as a phrase. Its case folding
 *   covers at least what `like` folds, so it never drops a row `like` keeps, and `like` then decides.
 *   A trigram needs 3 characters: shorter text falls back to `like` alone (a scan, short texts match
 *   much of the catalogue anyway).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';

/** `%`, `_` and `\` are LIKE wildcards; escape them so user text matches literally. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The FTS5 query for a literal substring: one quoted phrase (a `"` inside is doubled). */
function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

const TRIGRAM = 3;

export function substringMatch(
  dialect: Dialect,
  table: 'movies' | 'people' | 'tv_shows',
  column: 'title' | 'name',
  text: string,
): RawBuilder<boolean> {
  const lowered = text.toLowerCase();
  const like = sql<boolean>`lower(${sql.ref(`${table}.${column}`)}) like ${likePattern(text)} escape '\\'`;
  if (dialect === 'postgres' || [...lowered].length < TRIGRAM) return like;
  const fts = sql.raw(`${table}_fts`);
  return sql<boolean>`${sql.ref(`${table}.id`)} in (select rowid from ${fts} where ${fts} match ${ftsPhrase(lowered)}) and ${like}`;
}
