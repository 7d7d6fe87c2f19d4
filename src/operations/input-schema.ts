/**
 * Derives a tool's inputSchema from its operation's variable definitions (SPEC section 6): scalars,
 * enums with their values' descriptions, input objects (closed to unknown keys), lists, required for
 * non-null without default, defaults, @oneOf as exactly one key, and @range/@size/@pattern as bounds.
 */
import { getDirective } from '@graphql-tools/utils';
import {
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
  type GraphQLNullableType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { orNull, type JsonSchema } from './json-schema.js';

const SCALARS: Record<string, JsonSchema> = {
  // GraphQL accepts an ID as a string or an integer; so do the tools.
  ID: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 0 },
    ],
    description: 'An id, such as "12".',
  },
  String: { type: 'string' },
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

type Target = GraphQLArgument | GraphQLInputField;

/** @range → minimum/maximum, @size → length or item bounds, @pattern → pattern. */
function withConstraints(schema: GraphQLSchema, target: Target | undefined, json: JsonSchema): JsonSchema {
  if (!target) return json;
  const out: JsonSchema = { ...json };
  for (const { min, max } of getDirective(schema, target, 'range') ?? []) {
    if (min != null) out.minimum = min;
    if (max != null) out.maximum = max;
  }
  for (const { min, max } of getDirective(schema, target, 'size') ?? []) {
    const [low, high] =
      out.type === 'array' ? (['minItems', 'maxItems'] as const) : (['minLength', 'maxLength'] as const);
    if (min != null) out[low] = min;
    if (max != null) out[high] = max;
  }
  for (const { regexp } of getDirective(schema, target, 'pattern') ?? []) out.pattern = `^(?:${regexp})$`;
  return out;
}

function describe(...parts: (string | null | undefined)[]): string | undefined {
  const text = parts.filter((p): p is string => Boolean(p && p.trim())).join(' ');
  return text || undefined;
}

/**
 * The schema of a value of `type` filling `target`: bounds and description from the target, the
 * default if any, and null accepted only where GraphQL accepts it (never inside a @oneOf input).
 */
function valueSchema(
  schema: GraphQLSchema,
  type: GraphQLInputType,
  target: Target | undefined,
  options: { defaultValue?: unknown; nullable?: boolean } = {},
): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = (nonNull ? type.ofType : type) as GraphQLInputType & GraphQLNullableType;
  const core = withConstraints(schema, target, nonNullSchema(schema, inner));
  const described: JsonSchema = {
    ...core,
    ...(describe(target?.description, core.description)
      ? { description: describe(target?.description, core.description) }
      : {}),
    ...(options.defaultValue !== undefined ? { default: options.defaultValue } : {}),
  };
  return !nonNull && options.nullable !== false ? orNull(described) : described;
}

function nonNullSchema(schema: GraphQLSchema, type: GraphQLInputType): JsonSchema {
  if (isListType(type)) return { type: 'array', items: valueSchema(schema, type.ofType, undefined) };
  if (isEnumType(type)) {
    const values = type.getValues();
    const valueDocs = values.map((v) => `${v.name}: ${v.description ?? ''}`.trim()).join(' ');
    return {
      type: 'string',
      enum: values.map((v) => v.name),
      description: describe(type.description, valueDocs),
    };
  }
  if (isInputObjectType(type)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      // In a @oneOf input the one given key must be non-null: an explicit null counts as given and is refused.
      properties[field.name] = valueSchema(schema, field.type, field, {
        defaultValue: field.defaultValue,
        nullable: !type.isOneOf,
      });
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    return {
      type: 'object',
      ...(type.description ? { description: type.description } : {}),
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
function variableTargets(schema: GraphQLSchema, operation: OperationDefinitionNode): Map<string, Target> {
  const targets = new Map<string, Target>();
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
        const target = objectField ?? typeInfo.getArgument();
        if (target && !targets.has(name)) targets.set(name, target);
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
    // The variable's own default, else (for an omitted nullable variable) the argument's default applies.
    const defaultValue = definition.defaultValue
      ? valueFromAST(definition.defaultValue, type)
      : target && 'defaultValue' in target && !isNonNullType(type)
        ? target.defaultValue
        : undefined;
    properties[name] = valueSchema(schema, type, target, { defaultValue });
    if (isNonNullType(type) && !definition.defaultValue) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
