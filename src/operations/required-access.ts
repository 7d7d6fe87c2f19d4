/**
 * What a curated operation needs of its caller, derived at start-up from the @auth rules of every field
 * its document can reach (fragments included, each walked once), so the schema is the one source of
 * both: the OAuth scopes (the union of the fields' scopes) and the role (the highest any field
 * requires). The executor enforces the rules per field; /mcp uses the scopes to answer a token that
 * lacks one with the authorization spec's 403 insufficient_scope challenge before the call starts, and
 * both to list a caller only the tools it can call.
 */
import {
  getNamedType,
  isCompositeType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { ALL_SCOPES } from '../auth/identity.js';
import { authRuleOf } from '../graphql/auth-directives.js';
import type { RoleName } from '../store/tables.js';

export interface RequiredAccess {
  /** Scopes a caller's token must carry (anonymous callers are not asked for scopes). */
  scopes: string[];
  /** USER: any signed-in caller; ADMIN: administrators; undefined: anyone, anonymous included. */
  role?: RoleName;
}

/** Every field's own scopes and roles, over every type the selection may meet (a union covers its members). */
export function deriveRequiredAccess(
  schema: GraphQLSchema,
  rootType: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): RequiredAccess {
  const scopes = new Set<string>();
  let role: RoleName | undefined;
  const visitedFragments = new Set<string>();

  const walk = (parentType: GraphQLCompositeType, set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        // An abstract parent has no fields of its own to carry @auth: look at each possible object type.
        const objectTypes = isObjectType(parentType) ? [parentType] : schema.getPossibleTypes(parentType);
        for (const objectType of objectTypes) {
          const field = objectType.getFields()[selection.name.value];
          if (!field) continue;
          const rule = authRuleOf(schema, field);
          for (const scope of rule?.scopes ?? []) scopes.add(scope);
          if (rule?.requires && role !== 'ADMIN') role = rule.requires;
          const fieldType = getNamedType(field.type);
          if (selection.selectionSet && isCompositeType(fieldType)) walk(fieldType, selection.selectionSet);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parentType;
        if (condition && isCompositeType(condition)) walk(condition, selection.selectionSet);
      } else {
        const name = selection.name.value;
        if (visitedFragments.has(name)) continue;
        visitedFragments.add(name);
        const fragment = fragments.get(name);
        const condition = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && condition && isCompositeType(condition)) walk(condition, fragment.selectionSet);
      }
    }
  };

  walk(rootType, selectionSet);
  // A stable order (the catalogue's) keeps tool metadata and challenges deterministic.
  return { scopes: ALL_SCOPES.filter((scope) => scopes.has(scope)), ...(role ? { role } : {}) };
}
