import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { likePattern } from '../../src/store/substring-match.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** Titles where case folding, wildcards and quoting could make an index answer differently. */
const TRICKY_TITLES = [
  'École du Ciel',
  'ÉCOLE DES FEMMES',
  'İstanbul Nights',
  '\u212Aelvin Rising', // KELVIN SIGN, which Unicode lowercases to an ASCII k
  '100% Wolf',
  'under_score and back\\slash',
  'The "Quoted" Heist',
  'ΣΟΦΙΑ και σοφία',
  'Straße der Sehnsucht',
];

const TEXTS = [
  'godfather',
  'GODFATHER',
  'the',
  'he ',
  ' part ii',
  'go',
  'g',
  'école',
  'ÉCOLE',
  'cole',
  'İstanbul',
  'istanbul',
  'kelvin',
  '\u212Aelvin',
  '100%',
  '0% w',
  '%',
  '_',
  'r_s',
  'k\\s',
  '"quoted"',
  '"',
  'σοφία',
  'ΣΟΦΙΑ',
  'straße',
  'STRASSE',
  'zzz-nothing',
];

describe.each(dialects)('substring search on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    await server.store.handle.db
      .insertInto('movies')
      .values(TRICKY_TITLES.map((title) => ({ title, release_year: 2000, genre: 'DRAMA' as const })))
      .execute();
  });
  afterAll(() => server.stop());

  it('answers exactly what lower(title) like %text% answers, for every text, with totals to match', async () => {
    for (const text of TEXTS) {
      const { rows } = await sql<{
        id: number;
      }>`select id from movies where lower(title) like ${likePattern(text)} escape '\\' order by id`.execute(
        server.store.handle.db,
      );
      const expected = rows.map((row) => row.id);
      const found = await server.store.catalogue.findMovies({
        titleContains: text,
        sortField: 'TITLE',
        descending: false,
        offset: 0,
        limit: 1000,
      });
      expect(
        found.rows.map((movie) => movie.id).sort((a, b) => a - b),
        text,
      ).toEqual(expected);
      expect(found.total, text).toBe(expected.length);
      const search = await server.store.catalogue.search(text, 1000);
      expect(
        search.movies.map((movie) => movie.id).sort((a, b) => a - b),
        text,
      ).toEqual(expected);
    }
  });

  it('keeps the index in step when titles are renamed and movies deleted', async () => {
    const db = server.store.handle.db;
    const { id } = await db
      .insertInto('movies')
      .values({ title: 'Quixotic Voyage', release_year: 2001 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const find = async (text: string) =>
      (
        await server.store.catalogue.findMovies({
          titleContains: text,
          sortField: 'TITLE',
          descending: false,
          offset: 0,
          limit: 10,
        })
      ).rows.map((m) => m.id);
    expect(await find('quixotic')).toEqual([id]);
    await db.updateTable('movies').set({ title: 'Zealous Voyage' }).where('id', '=', id).execute();
    expect(await find('quixotic')).toEqual([]);
    expect(await find('zealous')).toEqual([id]);
    await db.deleteFrom('movies').where('id', '=', id).execute();
    expect(await find('zealous')).toEqual([]);
  });
});
