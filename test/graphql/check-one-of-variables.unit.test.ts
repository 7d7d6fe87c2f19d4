/** Which @oneOf keys given by nullable variables the check finds, and what it answers for each value. */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createOneOfVariablesCheck } from '../../src/graphql/check-one-of-variables.js';
import { buildSchema } from '../../src/graphql/schema.js';

const schema = buildSchema();
const checkOf = (source: string, operationName?: string) =>
  createOneOfVariablesCheck(schema, parse(source), operationName);

describe('createOneOfVariablesCheck', () => {
  it('finds nothing to check in documents without such a key (the usual case)', () => {
    expect(
      checkOf('mutation ($s: WatchlistSubjectInput!) { addToWatchlist(subject: $s) { id } }'),
    ).toBeUndefined();
    expect(checkOf('mutation ($m: ID!) { addToWatchlist(subject: { movieId: $m }) { id } }')).toBeUndefined();
    expect(checkOf('mutation { addToWatchlist(subject: { movieId: "1" }) { id } }')).toBeUndefined();
    expect(checkOf('query ($q: String) { movies(filter: { titleContains: $q }) { size } }')).toBeUndefined();
  });

  it('refuses an absent or null variable, naming the argument path and the key; accepts a value', () => {
    const check = checkOf('mutation ($m: ID) { addToWatchlist(subject: { movieId: $m }) { id } }')!;
    expect(check({ m: '1' })).toBeUndefined();
    const absent = check({})!;
    expect(absent.message).toBe(
      'subject.movieId takes the variable "$m", which was not given: the @oneOf input WatchlistSubjectInput needs exactly one key with a value (movieId or tvShowId)',
    );
    expect(absent.extensions).toEqual({ classification: 'BAD_REQUEST', field: 'subject.movieId' });
    expect(absent.locations).toEqual([{ line: 1, column: 56 }]);
    expect(check(null)?.message).toContain('was not given');
    expect(check({ m: null })?.message).toContain('which is null');
  });

  it('uses the variable default when the variable is absent, and refuses a null one', () => {
    const check = checkOf('mutation ($m: ID = "1") { addToWatchlist(subject: { tvShowId: $m }) { id } }')!;
    expect(check({})).toBeUndefined();
    expect(check({ m: null })?.extensions).toMatchObject({ field: 'subject.tvShowId' });
    const nullDefault = checkOf(
      'mutation ($m: ID = null) { addToWatchlist(subject: { movieId: $m }) { id } }',
    )!;
    expect(nullDefault({})?.message).toContain('which is null');
  });

  it('finds keys nested in input objects and in the fragments the operation reaches, not in others', () => {
    const nested = checkOf(
      'mutation ($m: ID) { createReview(input: { subject: { movieId: $m }, score: 5 }) { id } }',
    )!;
    expect(nested({})?.extensions).toMatchObject({ field: 'input.subject.movieId' });
    const source =
      'mutation A($m: ID) { ...W } mutation B($m: ID) { removeFromWatchlist(itemId: "1") } ' +
      'fragment W on Mutation { addToWatchlist(subject: { movieId: $m }) { id } }';
    expect(checkOf(source, 'A')!({})?.extensions).toMatchObject({ field: 'subject.movieId' });
    expect(checkOf(source, 'B')).toBeUndefined();
  });
});
