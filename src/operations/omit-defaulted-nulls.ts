/**
 * A tool argument or input field that GraphQL types non-null but gives a default (`order: SortOrder! =
 * ASC`) may be left out, and a `null` for it means the same: left out, so the default applies. Models in
 * strict mode (OpenAI's) send every optional property and null for those they do not use; GraphQL would
 * refuse the null ("must not be null"), and the tool would answer BAD_REQUEST for a call that only
 * meant "the default". Nullable ones need nothing here: the schema already reads their null as the
 * default (src/graphql/null-argument-defaults.ts, for /graphql and tools alike).
 *
 * Only tool arguments get this. On /graphql a null for a non-null input field stays the validation
 * error the GraphQL spec says it is (Input Coercion of input objects and variables).
 */
import {
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { isPlainObject } from '../is-plain-object.js';

/** Returns the value with such nulls left out (a copy where anything is left out, the value otherwise). */
export type OmitDefaultedNulls = (args: Record<string, unknown>) => Record<string, unknown>;

type ValueOmit = (value: unknown) => unknown;

/** One key of an object: whether its null is left out, and what to do inside its value. */
type KeyRule = readonly [name: string, nullMeansAbsent: boolean, nested: ValueOmit | undefined];

function objectOmit(rules: readonly KeyRule[]): (value: Record<string, unknown>) => Record<string, unknown> {
  return (value) => {
    let out: Record<string, unknown> | undefined;
    for (const [name, nullMeansAbsent, nested] of rules) {
      if (!(name in value)) continue;
      const field = value[name];
      if (field === null && nullMeansAbsent) {
        out ??= { ...value };
        delete out[name];
      } else if (nested && field !== null && field !== undefined) {
        const inner = nested(field);
        if (inner !== field) {
          out ??= { ...value };
          out[name] = inner;
        }
      }
    }
    return out ?? value;
  };
}

function typeOmit(
  type: GraphQLInputType,
  cache: Map<string, ValueOmit | undefined | 'pending'>,
): ValueOmit | undefined {
  const inner = getNullableType(type);
  if (isListType(inner)) {
    const item = typeOmit(inner.ofType, cache);
    if (!item) return undefined;
    return (value) => (Array.isArray(value) ? value.map(item) : value);
  }
  if (!isInputObjectType(inner)) return undefined;
  const cached = cache.get(inner.name);
  // A recursive input type refers back to itself: resolve the reference lazily.
  if (cached === 'pending')
    return (value) => (cache.get(inner.name) as ValueOmit | undefined)?.(value) ?? value;
  if (cache.has(inner.name)) return cached as ValueOmit | undefined;
  cache.set(inner.name, 'pending');
  const rules = Object.values(inner.getFields()).flatMap((field): KeyRule[] => {
    const nullMeansAbsent = isNonNullType(field.type) && field.defaultValue !== undefined;
    const nested = typeOmit(field.type, cache);
    return nullMeansAbsent || nested ? [[field.name, nullMeansAbsent, nested]] : [];
  });
  const omitIn = rules.length > 0 ? objectOmit(rules) : undefined;
  const omit: ValueOmit | undefined = omitIn && ((value) => (isPlainObject(value) ? omitIn(value) : value));
  cache.set(inner.name, omit);
  return omit;
}

/** Derived once per operation at load: the tool runner applies it to every call's arguments. */
export function deriveOmitDefaultedNulls(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): OmitDefaultedNulls {
  const cache = new Map<string, ValueOmit | undefined | 'pending'>();
  const rules = (operation.variableDefinitions ?? []).flatMap((definition): KeyRule[] => {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) return [];
    const nullMeansAbsent = isNonNullType(type) && definition.defaultValue !== undefined;
    const nested = typeOmit(type, cache);
    return nullMeansAbsent || nested ? [[definition.variable.name.value, nullMeansAbsent, nested]] : [];
  });
  return rules.length > 0 ? objectOmit(rules) : (args) => args;
}
