import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  isScalarType,
  isSpecifiedScalarType,
  isIntrospectionType,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';

const schema: GraphQLSchema = buildSchema();

/** Every place an agent reads a description: types, fields, arguments, input fields, enum values, directives. */
function undescribed(): string[] {
  const missing: string[] = [];
  const need = (where: string, description: string | null | undefined) => {
    if (!description || description.trim().length < 3) missing.push(where);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || (isScalarType(type) && isSpecifiedScalarType(type))) continue;
    need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        need(`${type.name}.${field.name}`, field.description);
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
  }
  for (const directive of schema.getDirectives()) {
    if (['include', 'skip', 'deprecated', 'specifiedBy', 'oneOf'].includes(directive.name)) continue;
    need(`@${directive.name}`, directive.description);
    for (const arg of directive.args) need(`@${directive.name}(${arg.name})`, arg.description);
  }
  return missing;
}

describe('the schema', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    expect(undescribed()).toEqual([]);
  });

  it('has the enums of the contract (docs/contract.md, The GraphQL schema) with exactly their values', () => {
    const values = (name: string) => {
      const type = schema.getType(name);
      return isEnumType(type) ? type.getValues().map((v) => v.name) : [];
    };
    expect(values('Genre')).toEqual([
      'ACTION',
      'COMEDY',
      'CRIME',
      'DRAMA',
      'FANTASY',
      'HORROR',
      'MYSTERY',
      'ROMANCE',
      'SCIFI',
      'THRILLER',
      'WAR',
      'WESTERN',
    ]);
    expect(values('Mood')).toEqual(['COMFORT', 'ADVENTURE', 'ROMANCE', 'HORROR', 'THOUGHTFUL', 'COMEDY']);
    expect(values('WatchStatus')).toEqual(['WANT_TO_WATCH', 'WATCHED']);
    expect(values('Role')).toEqual(['USER', 'ADMIN']);
    expect(values('MovieSortField')).toEqual(['TITLE', 'RELEASE_YEAR', 'RATING', 'RUNTIME']);
    expect(values('SortOrder')).toEqual(['ASC', 'DESC']);
  });

  it('has the root fields of the contract (docs/contract.md, The GraphQL schema)', () => {
    const fields = (name: string) =>
      Object.keys((schema.getType(name) as { getFields(): object }).getFields()).sort();
    expect(fields('Query')).toEqual(
      [
        'me',
        'movie',
        'movies',
        'moviesByIds',
        'people',
        'person',
        'recommendMoviesForMood',
        'search',
        'summarizeMovieReviews',
        'tvShow',
        'tvShows',
        'watchlist',
        'watchlistItem',
      ].sort(),
    );
    expect(fields('Mutation')).toEqual(
      [
        'addToWatchlist',
        'createMovie',
        'createReview',
        'deleteMovie',
        'deleteReview',
        'login',
        'register',
        'removeFromWatchlist',
        'setWatchStatus',
        'updateMovie',
      ].sort(),
    );
  });

  it('Movie and TvShow implement Content; SearchResult is Movie | Person | TvShow; subjects are @oneOf', () => {
    const content = schema.getType('Content');
    expect(
      isInterfaceType(content) &&
        schema
          .getPossibleTypes(content)
          .map((t) => t.name)
          .sort(),
    ).toEqual(['Movie', 'TvShow']);
    const search = schema.getType('SearchResult');
    expect(isUnionType(search) && search.getTypes().map((t) => t.name)).toEqual([
      'Movie',
      'Person',
      'TvShow',
    ]);
    for (const name of ['WatchlistSubjectInput', 'ReviewSubjectInput']) {
      const input = schema.getType(name);
      expect(isInputObjectType(input) && input.isOneOf).toBe(true);
    }
  });
});
