import { buildSchema as buildSdl, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ownRowsWrites } from '../../src/graphql/own-rows-writes.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { ALL_SCOPES, type Identity, type RoleName } from '../../src/auth/identity.js';

const writesOnlyOwnRows = ownRowsWrites(buildSchema());
const identity = (role: RoleName, scopes: readonly string[] = ALL_SCOPES): Identity => ({
  subject: '7',
  userId: 7,
  role,
  scopes,
  expiresAt: 2_000_000_000,
});
const USER = identity('USER');
const check = (document: string, operationName?: string, viewer: Identity | null = USER) =>
  writesOnlyOwnRows(parse(document), operationName, viewer);

describe('which mutations write only their caller’s own rows (@ownRows, @writesNoRows)', () => {
  it('the watch-list writes do, however the document is spelt', () => {
    expect(check('mutation { setWatchStatus(itemId: "1", status: WATCHED) { id } }')).toBe(true);
    expect(check('mutation { removeFromWatchlist(itemId: "1") }')).toBe(true);
    expect(
      check(
        'mutation { __typename a: addToWatchlist(subject: { movieId: "1" }) { id content { title } } ... on Mutation { ...F } } fragment F on Mutation { removeFromWatchlist(itemId: "2") ...F }',
      ),
    ).toBe(true);
  });

  it('signing in writes no rows, alone or beside a watch-list write; registering does', () => {
    const login = 'login(input: { username: "a", password: "b" }) { token }';
    expect(check(`mutation { ${login} }`)).toBe(true);
    expect(check(`mutation { ${login} removeFromWatchlist(itemId: "1") }`)).toBe(true);
    expect(check(`mutation { ${login} deleteReview(id: "1") }`)).toBe(false);
    expect(
      check(
        'mutation { register(input: { username: "a", email: "a@b.c", password: "12345678" }) { token } }',
      ),
    ).toBe(false);
  });

  it('anything else does not: another mutation beside them, a query, an operation not chosen', () => {
    expect(
      check(
        'mutation { setWatchStatus(itemId: "1", status: WATCHED) { id } createReview(input: { subject: { movieId: "1" }, score: 5 }) { id } }',
      ),
    ).toBe(false);
    expect(
      check(
        'mutation { ...F } fragment F on Mutation { deleteMovie(id: "1") removeFromWatchlist(itemId: "1") }',
        undefined,
        identity('ADMIN'),
      ),
    ).toBe(false);
    expect(check('{ watchlist { id } }')).toBe(false);
    const two = 'mutation A { removeFromWatchlist(itemId: "1") } mutation B { deleteReview(id: "1") }';
    expect(check(two, 'A')).toBe(true);
    expect(check(two, 'B')).toBe(false);
    expect(check(two)).toBe(false);
    expect(check('mutation { ...Missing }')).toBe(false);
  });

  it('a field its @auth rule refuses this caller ran no resolver, so it wrote nothing; one it allows may have', () => {
    const deleteMovie = 'mutation { deleteMovie(id: "1") }';
    expect(check(deleteMovie, undefined, null)).toBe(true);
    expect(check(deleteMovie, undefined, USER)).toBe(true);
    expect(check(deleteMovie, undefined, identity('ADMIN'))).toBe(false);
    const review = 'mutation { createReview(input: { subject: { movieId: "1" }, score: 5 }) { id } }';
    expect(check(review, undefined, null)).toBe(true);
    expect(check(review, undefined, identity('USER', ['movies:read']))).toBe(true);
    expect(check(review, undefined, USER)).toBe(false);
    // One refused field beside one that runs: the one that runs may have written.
    expect(check('mutation { deleteMovie(id: "1") deleteReview(id: "2") }', undefined, USER)).toBe(false);
    // register has no @auth rule: anyone's may run, refused or not.
    const register =
      'mutation { register(input: { username: "a", email: "a@b.c", password: "12345678" }) { token } }';
    expect(check(register, undefined, null)).toBe(false);
  });

  it('refuses a schema that puts @ownRows where a shared answer could show what it writes', () => {
    const schema = (extra: string) =>
      buildSdl(`
        directive @ownRows on FIELD_DEFINITION
        directive @writesNoRows on FIELD_DEFINITION
        directive @sharedResult(unlessTrue: String) on FIELD_DEFINITION
        type Item { id: ID! }
        type Movie { id: ID! ${extra} }
        type Query { movie: Movie @sharedResult note: String @ownRows other: Movie @writesNoRows }
        type Mutation { addItem: Item! @ownRows removeItem: Boolean! @ownRows signIn: Movie @writesNoRows }
      `);
    expect(() => ownRowsWrites(schema('items: [Item!]!'))).toThrow(
      'The schema misuses its write directives:\n  Query.note: @ownRows belongs on Mutation fields only\n  Query.other: @writesNoRows belongs on Mutation fields only\n  Mutation.addItem: @ownRows, but its type Item can be reached from a @sharedResult field',
    );
    // A scalar answer (removeItem's Boolean) holds no rows, wherever else Booleans appear; a field that
    // writes no rows may answer with anything (signIn's Movie).
    expect(() => ownRowsWrites(schema('seen: Boolean'))).toThrow(
      'The schema misuses its write directives:\n  Query.note: @ownRows belongs on Mutation fields only\n  Query.other: @writesNoRows belongs on Mutation fields only',
    );
  });
});
