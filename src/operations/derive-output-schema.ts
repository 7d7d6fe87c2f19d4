/**
 * Derives a tool's outputSchema from its operation's selection set: the `{ data, errors }` envelope of
 * docs/contract.md, MCP tools, where `data` is the shape of the root field's value exactly as selected (or null).
 *
 * The schema is the shape and nothing else: every selected field with its type, nullability and enum
 * values. What the result means is the tool's description (the operation's own comment, written for
 * it), and what the envelope's errors mean is said once for all tools, in the server's instructions;
 * repeating field descriptions here made output schemas two thirds of tools/list. `required` is listed
 * only where it tells something: on the envelope, on each error, and on an object some of whose fields
 * are conditional (selected on one member type of an interface or union). Closedness
 * (`additionalProperties: false`) is not advertised: a client has nothing to do with it.
 */
import {
  Kind,
  getNamedType,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isScalarType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { orNull, type JsonSchema } from './json-schema.js';

const SCALARS: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

/**
 * One error of the envelope, compact: its fields (message, path, classification, retryable,
 * extensions), the classifications and what to do for each are in the server's instructions, said once
 * rather than in every tool.
 */
const ERROR_SCHEMA: JsonSchema = { type: 'object' };

export function deriveOutputSchema(
  schema: GraphQLSchema,
  rootType: GraphQLCompositeType,
  rootField: FieldNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JsonSchema {
  const field = isObjectType(rootType) ? rootType.getFields()[rootField.name.value] : undefined;
  const data = field ? typeSchema(schema, field.type, rootField.selectionSet, fragments) : {};
  return {
    type: 'object',
    properties: {
      data: orNull(stripNull(data)),
      errors: { type: 'array', items: ERROR_SCHEMA },
    },
    required: ['data', 'errors'],
  };
}

/** A root value may be null on failure whatever the field's own nullability: unwrap, to wrap once. */
function stripNull(schema: JsonSchema): JsonSchema {
  if (schema.enum?.includes(null)) return { ...schema, enum: schema.enum.filter((v) => v !== null) };
  const [core, maybeNull] = schema.anyOf ?? [];
  return core && maybeNull?.type === 'null' && schema.anyOf?.length === 2 ? core : schema;
}

function typeSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JsonSchema {
  if (isNonNullType(type)) return nonNull(schema, type.ofType, selectionSet, fragments);
  const core = nonNull(schema, type, selectionSet, fragments);
  // An enum that may be null lists null among its values: shorter than anyOf, and as portable.
  return core.enum ? { enum: [...core.enum, null] } : orNull(core);
}

function nonNull(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JsonSchema {
  if (isListType(type))
    return { type: 'array', items: typeSchema(schema, type.ofType, selectionSet, fragments) };
  // `enum` alone says the value is one of these strings; `type` would repeat it.
  if (isEnumType(type)) return { enum: type.getValues().map((v) => v.name) };
  if (isScalarType(type)) return SCALARS[type.name] ?? {};
  const named = getNamedType(type) as GraphQLCompositeType;
  return objectSchema(schema, named, selectionSet, fragments);
}

/**
 * Fields selected on the type itself are always present; fields from fragments on a narrower type are
 * present only for that type, so they are optional.
 */
function objectSchema(
  schema: GraphQLSchema,
  type: GraphQLCompositeType,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const possible = isAbstractType(type) ? schema.getPossibleTypes(type).map((t) => t.name) : [type.name];

  const collect = (set: SelectionSetNode | undefined, on: GraphQLCompositeType, always: boolean) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        if (selection.name.value === '__typename') {
          properties[key] = {
            enum: isAbstractType(on) ? schema.getPossibleTypes(on).map((t) => t.name) : [on.name],
          };
        } else {
          const field =
            isObjectType(on) || isInterfaceType(on) ? on.getFields()[selection.name.value] : undefined;
          if (!field) continue;
          properties[key] = typeSchema(schema, field.type, selection.selectionSet, fragments);
        }
        if (always) required.add(key);
      } else {
        const fragment =
          selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : undefined;
        const condition = fragment
          ? fragment.typeCondition
          : selection.kind === Kind.INLINE_FRAGMENT
            ? selection.typeCondition
            : undefined;
        const narrowed = condition
          ? (schema.getType(condition.name.value) as GraphQLCompositeType | undefined)
          : on;
        if (!narrowed) continue;
        const coversAll =
          narrowed.name === on.name ||
          (isAbstractType(narrowed) &&
            possible.every((p) => schema.getPossibleTypes(narrowed).some((t) => t.name === p)));
        collect(
          fragment ? fragment.selectionSet : (selection as { selectionSet: SelectionSetNode }).selectionSet,
          narrowed,
          always && coversAll,
        );
      }
    }
  };
  collect(selectionSet, type, true);
  const conditional = Object.keys(properties).some((key) => !required.has(key));
  return { type: 'object', properties, ...(conditional ? { required: [...required] } : {}) };
}
