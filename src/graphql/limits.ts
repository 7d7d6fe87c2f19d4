/**
 * Bounds on an operation's shape, checked once per document after the standard validation rules (which
 * have already rejected fragment cycles). Cost estimates how many values a response can hold: each field
 * counts 1, and a list multiplies what is under it by the page size asked for (literal `size`) or a default.
 */
import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

export interface OperationLimits {
  maxDepth: number;
  maxCost: number;
}

/** Assumed length of a list whose size the operation does not state (or states with a variable). */
const DEFAULT_LIST_LENGTH = 10;
/** A `size` given through a variable is assumed to be the largest the schema allows. */
const VARIABLE_PAGE_SIZE = 100;

interface Measure {
  depth: number;
  cost: number;
}

export function checkOperationLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: OperationLimits,
): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  function measure(
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    listLength: number,
    seen: Set<string>,
  ): Measure {
    let depth = 0;
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const field =
          isObjectType(parent) || isInterfaceType(parent)
            ? parent.getFields()[selection.name.value]
            : undefined;
        if (!field) continue;
        const sizeArg = selection.arguments?.find((arg) => arg.name.value === 'size');
        const pageSize =
          sizeArg?.value.kind === Kind.INT
            ? Number(sizeArg.value.value)
            : sizeArg
              ? VARIABLE_PAGE_SIZE
              : undefined;
        const multiplier = isListType(getNullableType(field.type)) ? listLength : 1;
        const childType = getNamedType(field.type);
        const child =
          selection.selectionSet && isCompositeType(childType)
            ? measure(selection.selectionSet, childType, pageSize ?? DEFAULT_LIST_LENGTH, seen)
            : { depth: 0, cost: 0 };
        depth = Math.max(depth, child.depth + 1);
        cost += multiplier * (1 + child.cost);
      } else {
        const fragment =
          selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : undefined;
        if (selection.kind === Kind.FRAGMENT_SPREAD && (!fragment || seen.has(selection.name.value)))
          continue;
        const set = fragment
          ? fragment.selectionSet
          : (selection as { selectionSet: SelectionSetNode }).selectionSet;
        const condition = fragment
          ? fragment.typeCondition
          : selection.kind === Kind.INLINE_FRAGMENT
            ? selection.typeCondition
            : undefined;
        const type = condition ? schema.getType(condition.name.value) : parent;
        const inner = measure(
          set,
          type && isCompositeType(type) ? type : parent,
          listLength,
          fragment ? new Set([...seen, fragment.name.value]) : seen,
        );
        depth = Math.max(depth, inner.depth);
        cost += inner.cost;
      }
    }
    return { depth, cost };
  }

  const errors: GraphQLError[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation);
    if (!root) continue;
    const { depth, cost } = measure(definition.selectionSet, root, DEFAULT_LIST_LENGTH, new Set());
    const name = definition.name ? `Operation ${definition.name.value}` : 'The operation';
    if (depth > limits.maxDepth) {
      errors.push(
        new GraphQLError(`${name} is nested ${depth} levels deep; the limit is ${limits.maxDepth}`, {
          nodes: definition,
          extensions: { classification: 'BAD_REQUEST', limit: 'depth' },
        }),
      );
    }
    if (cost > limits.maxCost) {
      errors.push(
        new GraphQLError(
          `${name} has an estimated cost of ${cost}; the limit is ${limits.maxCost}. Ask for smaller pages or fewer fields`,
          {
            nodes: definition,
            extensions: { classification: 'BAD_REQUEST', limit: 'cost' },
          },
        ),
      );
    }
  }
  return errors;
}
