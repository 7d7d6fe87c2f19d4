/**
 * Derives a tool's inputSchema from its operation's variable definitions (SPEC section 6): scalars,
 * enums with their values' descriptions, input objects (closed to unknown keys), lists, required for
 * non-null without default, defaults, @oneOf as exactly one key, and @range/@size/@pattern as bounds.
 */
import { getDirective } from '@graphql-tools/utils';
import {
  Kind,
  TypeInfo,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { orNull, type JsonSchema } from './json-schema.js';

const SCALARS: Record<string, JsonSchema> = {
  // GraphQL accepts an ID as a string or an integer; so do the tools.
  ID: { type: ['string', 'integer'], minLength: 1, description: 'An id, such as "12".' },
  String: { type: 'string' },
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

type Constrained = GraphQLArgument | GraphQLInputField;

/** @range → minimum/maximum, @size → length or item bounds, @pattern → pattern. */
function constraints(schema: GraphQLSchema, target: Constrained, json: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...json };
  const baseType = Array.isArray(out.type) ? out.type.find((t) => t !== 'null') : out.type;
  for (const { min, max } of getDirective(schema, target, 'range') ?? []) {
    if (min != null) out.minimum = min;
    if (max != null) out.maximum = max;
  }
  for (const { min, max } of getDirective(schema, target, 'size') ?? []) {
    if (baseType === 'array') {
      if (min != null) out.minItems = min;
      if (max != null) out.maxItems = max;
    } else {
      if (min != null) out.minLength = min;
      if (max != null) out.maxLength = max;
    }
  }
  for (const { regexp } of getDirective(schema, target, 'pattern') ?? []) out.pattern = `^(?:${regexp})$`;
  return out;
}

function describe(...parts: (string | null | undefined)[]): string | undefined {
  const text = parts.filter((p): p is string => Boolean(p && p.trim())).join(' ');
  return text || undefined;
}

/** The JSON Schema of a GraphQL input type; nullability decides whether null is accepted. */
export function inputTypeSchema(schema: GraphQLSchema, type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return nonNullSchema(schema, type.ofType);
  return orNull(nonNullSchema(schema, type));
}

function nonNullSchema(schema: GraphQLSchema, type: GraphQLInputType): JsonSchema {
  if (isListType(type)) return { type: 'array', items: inputTypeSchema(schema, type.ofType) };
  if (isEnumType(type)) {
    const values = type.getValues();
    const valueDocs = values.map((v) => `${v.name}: ${v.description ?? ''}`.trim()).join(' ');
    return {
      type: 'string',
      enum: values.map((v) => v.name),
      description: describe(type.description ?? undefined, valueDocs),
    };
  }
  if (isInputObjectType(type)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      // In a @oneOf input the one given key must be non-null (an explicit null counts as given and is refused).
      const fieldSchema =
        type.isOneOf && !isNonNullType(field.type)
          ? nonNullSchema(schema, field.type)
          : inputTypeSchema(schema, field.type);
      properties[field.name] = constraints(schema, field, {
        ...fieldSchema,
        description: describe(field.description, fieldSchema.description),
        ...(field.defaultValue !== undefined ? { default: field.defaultValue } : {}),
      });
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    return {
      type: 'object',
      description: describe(type.description),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      ...(type.isOneOf ? { minProperties: 1, maxProperties: 1 } : {}),
    };
  }
  if (isScalarType(type)) {
    // Built-in scalars' descriptions explain GraphQL, not this API; only our own scalars add one.
    const description = isSpecifiedScalarType(type) ? undefined : type.description;
    return { ...SCALARS[type.name], ...(description ? { description } : {}) };
  }
  return {};
}

/** Where each variable is used: the argument or input field it fills, for descriptions and bounds. */
function variableTargets(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Map<string, Constrained> {
  const targets = new Map<string, Constrained>();
  const typeInfo = new TypeInfo(schema);
  let objectField: GraphQLInputField | undefined;
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        objectField = parent && isInputObjectType(parent) ? parent.getFields()[node.name.value] : undefined;
      },
      Variable(node) {
        const name = node.name.value;
        if (targets.has(name)) return;
        const target = objectField ?? typeInfo.getArgument();
        if (target) targets.set(name, target);
      },
      Argument() {
        objectField = undefined;
      },
    }),
  );
  return targets;
}

export function deriveInputSchema(schema: GraphQLSchema, operation: OperationDefinitionNode): JsonSchema {
  const targets = variableTargets(schema, operation);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const target = targets.get(name);
    let property = inputTypeSchema(schema, type);
    property = { ...property, description: describe(target?.description, property.description) };
    if (target) property = constraints(schema, target, property);
    if (definition.defaultValue) {
      const value = valueFromAST(definition.defaultValue, type);
      if (value !== undefined) property.default = value;
    } else if (
      target &&
      'defaultValue' in target &&
      target.defaultValue !== undefined &&
      definition.type.kind !== Kind.NON_NULL_TYPE
    ) {
      property.default = target.defaultValue;
    }
    properties[name] = property;
    if (definition.type.kind === Kind.NON_NULL_TYPE && !definition.defaultValue) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
