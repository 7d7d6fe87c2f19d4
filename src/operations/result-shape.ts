/**
 * Where a tool's answer can be cut to fit the response budget (src/mcp/fit-result-budget.ts): a list
 * at the root is cut to fewer items (the rest by the `offset` argument); a page (a root object with a
 * `content` list and `totalElements`, whose `page` and `size` arguments come from variables) is cut to
 * a smaller page. Other answers, one entity and its relations, are never cut.
 */
import {
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLField,
  type OperationDefinitionNode,
} from 'graphql';
import type { JsonSchema } from './json-schema.js';

export type ResultShape =
  { kind: 'list' } | { kind: 'page'; listKey: string; pageVariable: string; sizeVariable: string };

/** Fields of a page that describe it; a smaller page gets them recomputed when the data selects them. */
const PAGE_FIELDS = [
  'content',
  'totalElements',
  'totalPages',
  'currentPage',
  'size',
  'hasNext',
  'hasPrevious',
];

export function deriveResultShape(
  field: GraphQLField<unknown, unknown> | undefined,
  rootField: FieldNode,
  operation: OperationDefinitionNode,
): ResultShape | undefined {
  if (!field) return undefined;
  const type = isNonNullType(field.type) ? field.type.ofType : field.type;
  if (isListType(type)) return { kind: 'list' };
  const named = getNamedType(type);
  if (!isObjectType(named) || !PAGE_FIELDS.every((name) => name in named.getFields())) return undefined;
  // The page must be cut where the operation can fetch the rest: by its page and size variables.
  const variableOf = (name: string) => {
    const value = rootField.arguments?.find((argument) => argument.name.value === name)?.value;
    return value?.kind === Kind.VARIABLE ? value.name.value : undefined;
  };
  const selected = (name: string) =>
    rootField.selectionSet?.selections.some(
      (selection) => selection.kind === Kind.FIELD && !selection.alias && selection.name.value === name,
    );
  const pageVariable = variableOf('page');
  const sizeVariable = variableOf('size');
  const declared = (name: string | undefined) =>
    operation.variableDefinitions?.some((definition) => definition.variable.name.value === name);
  if (!pageVariable || !sizeVariable || !declared(pageVariable) || !declared(sizeVariable)) return undefined;
  if (!selected('content') || !selected('totalElements')) return undefined;
  return { kind: 'page', listKey: 'content', pageVariable, sizeVariable };
}

/** The envelope's outputSchema with the marker a cut answer carries, so clients know its shape. */
export function withTruncationMarker(outputSchema: JsonSchema): JsonSchema {
  return {
    ...outputSchema,
    properties: {
      ...outputSchema.properties,
      // Its fields (returned, total, nextArguments) are described once, in the server's instructions.
      truncated: { type: 'object' },
    },
  };
}
