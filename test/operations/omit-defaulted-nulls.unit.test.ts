/**
 * Which nulls in a tool's arguments mean "left out" (src/operations/omit-defaulted-nulls.ts): those for
 * a non-null variable or input field with a default, at any depth (in lists, in recursive inputs), and
 * no other. A pure function of a schema and an operation.
 */
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { deriveOmitDefaultedNulls } from '../../src/operations/omit-defaulted-nulls.js';

const schema = buildSchema(`
  enum Order { ASC DESC }
  input Sort { field: String! = "title", order: Order! = ASC, tie: Order = DESC, name: String! }
  input Tree { order: Order! = ASC, children: [Tree!], label: String }
  type Query {
    list(sort: Sort, sorts: [Sort!], tree: Tree, size: Int! = 10, plain: Int): Int
  }
`);

const omitFor = (source: string) =>
  deriveOmitDefaultedNulls(schema, parse(source).definitions[0] as OperationDefinitionNode);

describe('deriveOmitDefaultedNulls', () => {
  const omit = omitFor(`query ($sort: Sort, $sorts: [Sort!], $tree: Tree, $size: Int! = 10, $plain: Int) {
    list(sort: $sort, sorts: $sorts, tree: $tree, size: $size, plain: $plain)
  }`);

  it('leaves out a null for a non-null input field with a default, and keeps every other null', () => {
    expect(omit({ sort: { field: null, order: null, tie: null, name: null } })).toEqual({
      sort: { tie: null, name: null },
    });
  });

  it('leaves out a null for a non-null variable with a default; a nullable one keeps its null', () => {
    expect(omit({ size: null, plain: null, sort: null })).toEqual({ plain: null, sort: null });
  });

  it('reaches list items and recursive inputs', () => {
    expect(
      omit({
        sorts: [{ order: null, name: 'a' }, null, 'not an object'],
        tree: { order: null, children: [{ order: null, children: [{ order: 'DESC', label: null }] }] },
      }),
    ).toEqual({
      sorts: [{ name: 'a' }, null, 'not an object'],
      tree: { children: [{ children: [{ order: 'DESC', label: null }] }] },
    });
  });

  it('returns the arguments themselves when nothing is left out, and never changes them', () => {
    const args = { sort: { order: 'DESC', name: 'x' }, size: 3 };
    expect(omit(args)).toBe(args);
    const withNull = { sort: { order: null, name: 'x' } };
    omit(withNull);
    expect(withNull).toEqual({ sort: { order: null, name: 'x' } });
  });

  it('is the identity for an operation with nothing to leave out', () => {
    const args = { plain: null };
    expect(omitFor('query ($plain: Int) { list(plain: $plain) }')(args)).toBe(args);
  });
});
