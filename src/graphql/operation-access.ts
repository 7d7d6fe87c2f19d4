/**
 * What an operation asks of its caller, read from the document before anything runs: the @auth rules
 * of every field it selects, and whether it issues bearer tokens. @auth checks each field as it
 * resolves; an answer that does not come from the resolvers (an idempotent replay) must be refused
 * first by the same rules, and an answer holding a token must never be stored.
 *
 * Linear in the document (docs/errors.md, Operation bounds: every bound in linear time): each selection is walked once and each fragment once, and a
 * field of an abstract type is looked up on each of its possible types (a number the schema bounds).
 */
import {
  GraphQLError,
  getNamedType,
  getOperationAST,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Identity } from '../auth/identity.js';
import { authRuleOf, refusalOf, type AuthRule } from './auth-directives.js';
import { fragmentsOf } from './fragments-of.js';
import { perOperation } from './per-operation.js';

/** The type register and login answer with: it holds the new bearer token. */
const TOKEN_TYPE = 'AuthResponse';

export interface OperationAccess {
  /** The refusal @auth would give this caller at some field of the operation; undefined when none. */
  refusalFor(
    document: DocumentNode,
    operationName: string | null | undefined,
    viewer: Identity | null,
  ): GraphQLError | undefined;
  /** Whether the operation selects a field whose answer holds a bearer token (register, login). */
  issuesTokens(document: DocumentNode, operationName: string | null | undefined): boolean;
}

interface FieldUse {
  fieldName: string;
  rule: AuthRule;
  /** The response key of the root field the use sits under: where the refusal is reported. */
  rootKey: string;
}

interface Access {
  uses: readonly FieldUse[];
  issuesTokens: boolean;
}

const NO_ACCESS: Access = { uses: [], issuesTokens: false };

export function createOperationAccess(schema: GraphQLSchema): OperationAccess {
  const tokenType = schema.getType(TOKEN_TYPE);
  const rules = new Map<GraphQLField<unknown, unknown>, AuthRule | null>();

  function ruleOf(field: GraphQLField<unknown, unknown>): AuthRule | null {
    let rule = rules.get(field);
    if (rule === undefined) rules.set(field, (rule = authRuleOf(schema, field) ?? null));
    return rule;
  }

  function analyse(document: DocumentNode, operationName: string | null | undefined): Access {
    const operation = getOperationAST(document, operationName);
    const rootType = operation && schema.getRootType(operation.operation);
    if (!operation || !rootType) return NO_ACCESS;
    const fragments = fragmentsOf(document);
    const uses = new Map<GraphQLField<unknown, unknown>, FieldUse>();
    const visited = new Set<string>();
    let issuesTokens = false;

    const walk = (parent: GraphQLCompositeType, set: SelectionSetNode, rootKey?: string): void => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const name = selection.name.value;
          if (visited.has(name)) continue;
          visited.add(name);
          const fragment = fragments.get(name);
          const condition = fragment && schema.getType(fragment.typeCondition.name.value);
          if (fragment && isCompositeType(condition)) walk(condition, fragment.selectionSet, rootKey);
          continue;
        }
        if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition
            ? schema.getType(selection.typeCondition.name.value)
            : parent;
          if (isCompositeType(condition)) walk(condition, selection.selectionSet, rootKey);
          continue;
        }
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        const key = rootKey ?? selection.alias?.value ?? name;
        // The parent's own field gives the child type; an abstract parent's members may carry @auth too.
        const owners = isAbstractType(parent) ? [parent, ...schema.getPossibleTypes(parent)] : [parent];
        let childType: GraphQLNamedType | undefined;
        for (const owner of owners) {
          const field = isObjectType(owner) || isInterfaceType(owner) ? owner.getFields()[name] : undefined;
          if (!field) continue;
          const rule = ruleOf(field);
          if (rule && !uses.has(field)) uses.set(field, { fieldName: name, rule, rootKey: key });
          childType ??= getNamedType(field.type);
        }
        if (childType !== undefined && childType === tokenType) issuesTokens = true;
        if (selection.selectionSet && isCompositeType(childType))
          walk(childType, selection.selectionSet, key);
      }
    };

    walk(rootType, operation.selectionSet);
    return { uses: [...uses.values()], issuesTokens };
  }

  const accessOf = perOperation(analyse);

  return {
    refusalFor(document, operationName, viewer) {
      for (const use of accessOf(document, operationName).uses) {
        const refusal = refusalOf(viewer, use.rule, use.fieldName);
        if (refusal)
          return new GraphQLError(refusal.message, {
            path: [use.rootKey],
            extensions: { ...refusal.extensions, classification: refusal.classification },
          });
      }
      return undefined;
    },
    issuesTokens: (document, operationName) => accessOf(document, operationName).issuesTokens,
  };
}
