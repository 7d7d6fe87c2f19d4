/**
 * A @oneOf input object written in the document with a nullable variable as its one key
 * (`addToWatchlist(subject: {movieId: $m})` with `$m: ID`) is valid, and stays so only while the variable
 * has a value: absent, it leaves the object with no key; null, with a null one. graphql-js then throws an
 * unclassified "invalid value" from inside execution (which masking turns into INTERNAL_ERROR), and
 * graphql-jit, which does not know @oneOf, runs the resolver with neither key. This check runs before
 * either engine and answers both cases as the request's own fault, naming the argument and key, so the
 * same document answers the same on both engines and on every run.
 *
 * The usages are found once per document and operation (the operation and the fragments it reaches);
 * the check per call only looks the variables up.
 */
import {
  GraphQLError,
  Kind,
  TypeInfo,
  getNamedType,
  getOperationAST,
  isInputObjectType,
  visit,
  visitWithTypeInfo,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type VariableDefinitionNode,
  type VariableNode,
} from 'graphql';
import { fragmentsOf } from './fragments-of.js';

/** Returns the refusal for these variables, or undefined when every @oneOf key gets a value. */
export type OneOfVariablesCheck = (
  variables: Readonly<Record<string, unknown>> | null | undefined,
) => GraphQLError | undefined;

interface Usage {
  variable: VariableNode;
  definition: VariableDefinitionNode;
  /** Argument and input field names down to the key: `subject.movieId`. */
  field: string;
  typeName: string;
  keys: string[];
}

/** The fragments an operation reaches, each once. */
function reachedFragments(document: DocumentNode, root: ASTNode): FragmentDefinitionNode[] {
  const byName = fragmentsOf(document);
  const reached = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    visit(node, {
      FragmentSpread(spread) {
        const fragment = byName.get(spread.name.value);
        if (fragment && !reached.has(spread.name.value)) {
          reached.set(spread.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...reached.values()];
}

/** Names of the argument and input fields from the argument down to this node. */
function pathOf(ancestors: ReadonlyArray<ASTNode | readonly ASTNode[]>, key: string): string {
  const names: string[] = [];
  for (const ancestor of ancestors) {
    if (Array.isArray(ancestor)) continue;
    const node = ancestor as ASTNode;
    if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.push(node.name.value);
  }
  return [...names, key].join('.');
}

/** The check for one operation of a document; undefined when it has no such usage (the usual case). */
export function createOneOfVariablesCheck(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): OneOfVariablesCheck | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const definitions = new Map(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]),
  );
  // A non-null variable always has a value by the time execution starts: variable coercion sees to it.
  const nullable = [...definitions.values()].filter(
    (definition) => definition.type.kind !== Kind.NON_NULL_TYPE,
  );
  if (nullable.length === 0) return undefined;
  const usages: Usage[] = [];
  const typeInfo = new TypeInfo(schema);
  for (const root of [operation, ...reachedFragments(document, operation)]) {
    visit(
      root,
      visitWithTypeInfo(typeInfo, {
        VariableDefinition: () => false,
        ObjectField(field, _key, _parent, _path, ancestors) {
          if (field.value.kind !== Kind.VARIABLE) return;
          const definition = definitions.get(field.value.name.value);
          const parent = getNamedType(typeInfo.getParentInputType());
          if (!definition || definition.type.kind === Kind.NON_NULL_TYPE) return;
          if (!isInputObjectType(parent) || !parent.isOneOf) return;
          usages.push({
            variable: field.value,
            definition,
            field: pathOf(ancestors, field.name.value),
            typeName: parent.name,
            keys: Object.keys(parent.getFields()),
          });
        },
      }),
    );
  }
  if (usages.length === 0) return undefined;

  return (variables) => {
    for (const usage of usages) {
      const name = usage.variable.name.value;
      const given = variables != null && Object.hasOwn(variables, name) && variables[name] !== undefined;
      const fallback = usage.definition.defaultValue;
      const value = given ? variables[name] : fallback && (fallback.kind === Kind.NULL ? null : fallback);
      if (value !== null && value !== undefined) continue;
      const state = value === null ? 'is null' : 'was not given';
      return new GraphQLError(
        `${usage.field} takes the variable "$${name}", which ${state}: the @oneOf input ${usage.typeName} needs exactly one key with a value (${usage.keys.join(' or ')})`,
        { nodes: usage.variable, extensions: { classification: 'BAD_REQUEST', field: usage.field } },
      );
    }
    return undefined;
  };
}
