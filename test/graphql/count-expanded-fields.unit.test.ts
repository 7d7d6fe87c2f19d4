/** The expanded field count that decides whether a client document is worth compiling. */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { countExpandedFields } from '../../src/graphql/count-expanded-fields.js';
import { compileHeavyDocument, HEAVY_FIELDS } from '../helpers/compile-heavy-document.js';

const count = (source: string, operationName?: string) => countExpandedFields(parse(source), operationName);

describe('countExpandedFields', () => {
  it('counts every field, nested ones and those of inline fragments', () => {
    expect(count('{ movie(id: "1") { id title directors { name } } }')).toBe(5);
    expect(count('{ search(query: "x") { __typename ... on Movie { title } ... on Person { name } } }')).toBe(
      4,
    );
  });

  it('counts a fragment once for every place it is spread', () => {
    expect(
      count('{ a: movie(id: "1") { ...F } b: movie(id: "2") { ...F } } fragment F on Movie { id title }'),
    ).toBe(6);
    expect(countExpandedFields(parse(compileHeavyDocument()))).toBe(HEAVY_FIELDS);
  });

  it('counts the named operation only', () => {
    const source = 'query A { movie(id: "1") { id } } query B { me { id username email } }';
    expect(count(source, 'A')).toBe(2);
    expect(count(source, 'B')).toBe(4);
    expect(count(source, 'C')).toBe(0);
  });

  it('counts a doubling chain of 60 fragments in linear time, saturating instead of overflowing', () => {
    const fragments = ['fragment F0 on Movie { title }'];
    for (let i = 1; i <= 60; i++) fragments.push(`fragment F${i} on Movie { ...F${i - 1} ...F${i - 1} }`);
    // 2^60 spreads: a count that walked the expansion would never return (the test's timeout fails it).
    expect(count(`{ movie(id: "1") { ...F60 } }\n${fragments.join('\n')}`)).toBe(1e15);
  });

  it('counts nothing for a fragment cycle or an unknown fragment (validation refuses both)', () => {
    expect(
      count('{ movie(id: "1") { ...A } } fragment A on Movie { id ...B } fragment B on Movie { ...A }'),
    ).toBe(2);
    expect(count('{ movie(id: "1") { ...Nope } }')).toBe(1);
  });
});
