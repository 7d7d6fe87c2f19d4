/**
 * Which mutations change only their caller's own rows: those whose every root field is @ownRows (the
 * watch-list writes) or @writesNoRows (signing in), or is refused this caller by its own @auth rule, which
 * is checked before the resolver runs (src/graphql/auth-directives.ts), so it wrote nothing. The result
 * cache needs to forget only that caller's kept answers after one, instead of everything on every replica
 * (src/graphql/result-cache.ts): an anonymous `deleteMovie`, refused, clears no replica's cache.
 *
 * Each directive is the schema author's word: an @ownRows field writes rows the store's change feed
 * reports (src/store/account-changes.ts) and nothing a @sharedResult field shows; a @writesNoRows field
 * writes no row at all. The part of that word the schema can check is checked when the cache is built:
 * both sit on Mutation fields only, and an @ownRows field's type cannot be reached from any @sharedResult
 * field, so no shared answer can hold what it writes. An aggregate computed from those rows (a count on
 * Movie, say) cannot be seen from the types, so such a field must not be added while a field writing its
 * rows carries @ownRows.
 *
 * Linear in the document: each root selection and each fragment is looked at once, and what the document
 * asks is kept per document and operation name; each call then checks the caller against a few rules.
 */
import { getDirective } from '@graphql-tools/utils';
import {
  getNamedType,
  getOperationAST,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Identity } from '../auth/identity.js';
import { authRuleOf, refusalOf, type AuthRule } from './auth-directives.js';
import { fragmentsOf } from './fragments-of.js';
import { perOperation } from './per-operation.js';

/** Whether this caller's mutation can have written only the caller's own rows. */
export type OwnRowsWrites = (
  document: DocumentNode,
  operationName: string | null | undefined,
  viewer: Identity | null,
) => boolean;

/** The directives by which a mutation field keeps the shared answers. */
const WRITE_DIRECTIVES = ['ownRows', 'writesNoRows'] as const;

const carries = (schema: GraphQLSchema, field: Parameters<typeof getDirective>[1], directive: string) =>
  getDirective(schema, field, directive) !== undefined;

/**
 * The object, interface and union types a field's value can hold, its own included, through every field
 * and possible type. Scalars and enums carry no rows of their own (a Boolean answer is everywhere), so
 * they are not counted.
 */
function reachableFrom(schema: GraphQLSchema, start: GraphQLNamedType, seen: Set<GraphQLNamedType>) {
  const pending = [start];
  while (pending.length > 0) {
    const type = pending.pop()!;
    if (seen.has(type) || !isCompositeType(type)) continue;
    seen.add(type);
    if (isUnionType(type)) pending.push(...type.getTypes());
    if (isInterfaceType(type)) pending.push(...schema.getPossibleTypes(type));
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) pending.push(getNamedType(field.type));
  }
  return seen;
}

/** The schema's @ownRows and @writesNoRows fields that break their checkable rules, as readable lines. */
function misplacedWriteDirectives(schema: GraphQLSchema): string[] {
  const mutationType = schema.getMutationType();
  const shared = new Set<GraphQLNamedType>();
  const problems: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (getDirective(schema, field, 'sharedResult') !== undefined)
        reachableFrom(schema, getNamedType(field.type), shared);
      if (type === mutationType) continue;
      for (const directive of WRITE_DIRECTIVES)
        if (carries(schema, field, directive))
          problems.push(`${type.name}.${field.name}: @${directive} belongs on Mutation fields only`);
    }
  }
  for (const field of Object.values(mutationType?.getFields() ?? {})) {
    const type = getNamedType(field.type);
    if (carries(schema, field, 'ownRows') && shared.has(type))
      problems.push(
        `Mutation.${field.name}: @ownRows, but its type ${type.name} can be reached from a @sharedResult field`,
      );
  }
  return problems;
}

export function ownRowsWrites(schema: GraphQLSchema): OwnRowsWrites {
  const problems = misplacedWriteDirectives(schema);
  if (problems.length > 0)
    throw new Error(`The schema misuses its write directives:\n  ${problems.join('\n  ')}`);
  const mutationFields = schema.getMutationType()?.getFields() ?? {};
  /**
   * The @auth rules of the root fields that may write what a shared answer shows (none: own rows only;
   * undefined in the list: a field anyone may run), or null when the document cannot be read so.
   */
  const sharedWritersOf = perOperation(function analyse(
    document: DocumentNode,
    operationName: string | null | undefined,
  ): (AuthRule | undefined)[] | null {
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== 'mutation') return null;
    const fragments = fragmentsOf(document);
    const visited = new Set<string>();
    const writers: (AuthRule | undefined)[] = [];
    // Only the root selections: what a field selects below its own value writes nothing.
    const collect = (selectionSet: SelectionSetNode): boolean =>
      selectionSet.selections.every((selection) => {
        if (selection.kind === Kind.FIELD) {
          const name = selection.name.value;
          if (name === '__typename') return true;
          const field = mutationFields[name];
          if (!field) return false;
          if (!WRITE_DIRECTIVES.some((directive) => carries(schema, field, directive)))
            writers.push(authRuleOf(schema, field));
          return true;
        }
        if (selection.kind === Kind.INLINE_FRAGMENT) return collect(selection.selectionSet);
        const fragment = fragments.get(selection.name.value);
        if (!fragment) return false;
        if (visited.has(fragment.name.value)) return true;
        visited.add(fragment.name.value);
        return collect(fragment.selectionSet);
      });
    return collect(operation.selectionSet) ? writers : null;
  });
  return (document, operationName, viewer) =>
    sharedWritersOf(document, operationName)?.every(
      (rule) => rule !== undefined && refusalOf(viewer, rule, '') !== undefined,
    ) ?? false;
}
