/**
 * Derives a tool's inputSchema from its operation's variable definitions (docs/contract.md, MCP tools): scalars,
 * enums with their values' descriptions, input objects (closed to unknown keys), lists, required for
 * non-null without default, defaults, @oneOf as exactly one key, and @range/@size/@pattern as bounds.
 * Every listed schema stays inside what strict converters keep the meaning of (OpenAI's strict subset:
 * no keyword that contradicts "every property required"), so @oneOf is listed as a choice of one-key
 * objects rather than minProperties/maxProperties.
 *
 * Two forms of the same derivation. `strict` is what tools/call validates arguments against: it accepts
 * everything GraphQL accepts (an id as a string or an integer, an explicit null for an optional
 * argument) and nothing else (32-bit integers, unknown keys refused). `listed` is what tools/list
 * advertises, written for a model's context: each description says one thing once and no schema
 * spells out what the contract already implies. It never promises more than `strict` accepts: an id
 * is advertised as a string, an optional argument without its null branch (omitting it is the way to
 * say "none"), and GraphQL's 32-bit range is left to validation. Unknown keys stay refused in both:
 * `additionalProperties: false` is kept in the listing, where it tells an agent not to invent
 * arguments before it tries, for about 30 characters an object.
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
  type GraphQLEnumType,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLNullableType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { orNull, type JsonSchema } from './json-schema.js';

export type InputSchemaForm = 'strict' | 'listed';

const STRICT_SCALARS: Record<string, JsonSchema> = {
  // GraphQL accepts an ID as a string or an integer; so do the tools.
  ID: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 0 },
    ],
  },
  String: { type: 'string' },
  Int: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
};

const LISTED_SCALARS: Record<string, JsonSchema> = {
  ...STRICT_SCALARS,
  ID: { type: 'string' },
  Int: { type: 'integer' },
};

type Target = GraphQLArgument | GraphQLInputField;

interface Derivation {
  schema: GraphQLSchema;
  form: InputSchemaForm;
}

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
 * "COMEDY: Comedy: made mainly to amuse." says the name twice: a value description that opens with
 * its own name as a label loses the label ("COMEDY: made mainly to amuse."). Other labels stay
 * ("SCIFI: Science fiction: ..." explains the name).
 */
function enumValueDocs(type: GraphQLEnumType): string {
  const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  return type
    .getValues()
    .map((value) => {
      const text = value.description ?? '';
      const label = /^([^:.]{1,40}):\s+(.*)$/s.exec(text);
      const body = label && squash(label[1]!) === squash(value.name) ? label[2]! : text;
      return `${value.name}: ${body}`.trim();
    })
    .join(' ');
}

/**
 * The schema of a value of `type` filling `target`: bounds and description from the target, the
 * default if any, and null accepted only where GraphQL accepts it (never inside a @oneOf input) and,
 * in the listed form, never advertised for an optional value (leaving it out means the same).
 */
function valueSchema(
  d: Derivation,
  type: GraphQLInputType,
  target: Target | undefined,
  options: { defaultValue?: unknown; nullable?: boolean } = {},
): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = (nonNull ? type.ofType : type) as GraphQLInputType & GraphQLNullableType;
  const core = withConstraints(d.schema, target, nonNullSchema(d, inner, target?.description));
  const description = d.form === 'listed' ? describedFor(inner, target?.description, core) : undefined;
  const described: JsonSchema = {
    ...core,
    ...(description !== undefined ? { description } : {}),
    ...(options.defaultValue !== undefined ? { default: options.defaultValue } : {}),
  };
  const acceptsNull = !nonNull && options.nullable !== false && d.form === 'strict';
  return acceptsNull ? orNull(described) : described;
}

/**
 * One description per value: the argument's or field's own, which says what this value is for;
 * the type's only when the target has none. Enum values' meanings are always listed.
 */
function describedFor(
  type: GraphQLInputType,
  targetDescription: string | null | undefined,
  core: JsonSchema,
): string | undefined {
  if (isEnumType(type))
    return describe(targetDescription ?? type.description, enumValueDocs(type)) ?? undefined;
  return describe(targetDescription) ?? core.description;
}

function nonNullSchema(d: Derivation, type: GraphQLInputType, targetDescription?: string | null): JsonSchema {
  const listed = d.form === 'listed';
  if (isListType(type)) return { type: 'array', items: valueSchema(d, type.ofType, undefined) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  if (isInputObjectType(type)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      // In a @oneOf input the one given key must be non-null: an explicit null counts as given and is refused.
      properties[field.name] = valueSchema(d, field.type, field, {
        defaultValue: field.defaultValue,
        nullable: !type.isOneOf,
      });
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    const description = listed && !targetDescription && type.description ? type.description : undefined;
    // Listed, "exactly one key" is a choice of one-key objects: strict converters (OpenAI's) make every
    // property required, which turns minProperties/maxProperties 1 into a contradiction, but keep anyOf.
    if (listed && type.isOneOf) {
      return {
        ...(description ? { description } : {}),
        anyOf: Object.entries(properties).map(([key, value]) => ({
          type: 'object',
          properties: { [key]: value },
          required: [key],
          additionalProperties: false,
        })),
      };
    }
    return {
      type: 'object',
      ...(description ? { description } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      ...(type.isOneOf ? { minProperties: 1, maxProperties: 1 } : {}),
    };
  }
  if (isScalarType(type)) {
    // Built-in scalars' descriptions explain GraphQL, not this API; only our own scalars add one.
    const description = listed && !isSpecifiedScalarType(type) ? type.description : undefined;
    const scalars = listed ? LISTED_SCALARS : STRICT_SCALARS;
    return { ...scalars[type.name], ...(description ? { description } : {}) };
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

export function deriveInputSchema(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  form: InputSchemaForm,
): JsonSchema {
  const d: Derivation = { schema, form };
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
    properties[name] = valueSchema(d, type, target, { defaultValue });
    if (isNonNullType(type) && !definition.defaultValue) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
