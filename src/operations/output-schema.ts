/**
 * Derives a tool's outputSchema from its operation's selection set: the `{ data, errors }` envelope of
 * SPEC section 6, where `data` is the shape of the root field's value exactly as selected (or null).
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
import { CLASSIFICATIONS } from '../errors.js';
import { orNull, type JsonSchema } from './json-schema.js';

const SCALARS: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'One GraphQL error, with its classification lifted out so an agent can branch on it.',
  properties: {
    message: { type: 'string', description: 'What went wrong, in a sentence safe to show.' },
    path: {
      description: 'Where in the data the error happened; null for errors about the request as a whole.',
      anyOf: [
        { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        { type: 'null' },
      ],
    },
    classification: {
      type: 'string',
      enum: [...CLASSIFICATIONS],
      description: 'The error class: what the agent should do next depends on it.',
    },
    retryable: { type: 'boolean', description: 'True when the same call may succeed later.' },
    extensions: { type: 'object', description: 'Further details, such as entityType, field or reference.' },
  },
  required: ['message', 'path', 'classification', 'retryable'],
  additionalProperties: false,
};

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
      data: orNull({ ...stripNull(data), ...(field?.description ? { description: field.description } : {}) }),
      errors: { type: 'array', items: ERROR_SCHEMA, description: 'Empty on full success.' },
    },
    required: ['data', 'errors'],
    additionalProperties: false,
  };
}

/** A root value may be null on failure whatever the field's own nullability: unwrap, to wrap once. */
function stripNull(schema: JsonSchema): JsonSchema {
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
  return orNull(nonNull(schema, type, selectionSet, fragments));
}

function nonNull(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JsonSchema {
  if (isListType(type))
    return { type: 'array', items: typeSchema(schema, type.ofType, selectionSet, fragments) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
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
            type: 'string',
            enum: isAbstractType(on) ? schema.getPossibleTypes(on).map((t) => t.name) : [on.name],
          };
        } else {
          const field =
            isObjectType(on) || isInterfaceType(on) ? on.getFields()[selection.name.value] : undefined;
          if (!field) continue;
          properties[key] = {
            ...typeSchema(schema, field.type, selection.selectionSet, fragments),
            ...(field.description ? { description: field.description } : {}),
          };
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
  return {
    type: 'object',
    ...(type.description ? { description: type.description } : {}),
    properties,
    required: [...required],
    additionalProperties: false,
  };
}
