/**
 * An explicit `null` for an argument or input field that declares a default means the default (docs/contract.md,
 * The GraphQL schema: `page`/`size` are bounded pages). graphql-js passes the null through, and every resolver
 * would then have to remember it: `size: null` used to skip the page bound and list a whole table.
 * Applied to the schema, so /graphql and every tool get it through the one pipeline.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';

/** Returns the value with explicit nulls replaced by defaults; undefined when the type has none to fill. */
type Fill = (value: unknown) => unknown;

function typeFill(
  type: GraphQLInputType,
  cache: Map<string, Fill | undefined | 'pending'>,
): Fill | undefined {
  const inner = getNullableType(type);
  if (isListType(inner)) {
    const itemFill = typeFill(inner.ofType, cache);
    if (!itemFill) return undefined;
    return (value) => (Array.isArray(value) ? value.map(itemFill) : value);
  }
  if (!isInputObjectType(inner)) return undefined;
  const cached = cache.get(inner.name);
  // A recursive input type refers back to itself: resolve the reference lazily.
  if (cached === 'pending') return (value) => (cache.get(inner.name) as Fill | undefined)?.(value) ?? value;
  if (cache.has(inner.name)) return cached as Fill | undefined;
  cache.set(inner.name, 'pending');
  const fieldFills = Object.values(inner.getFields()).flatMap((field) => {
    const fill = targetFill(field.type, field.defaultValue, cache);
    return fill ? [[field.name, fill] as const] : [];
  });
  const fill: Fill | undefined =
    fieldFills.length === 0
      ? undefined
      : (value) => {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
          const filled: Record<string, unknown> = { ...(value as Record<string, unknown>) };
          for (const [name, fieldFill] of fieldFills) {
            if (name in filled) filled[name] = fieldFill(filled[name]);
          }
          return filled;
        };
  cache.set(inner.name, fill);
  return fill;
}

/** The fill for one argument or input field: its own default, then whatever its type holds. */
function targetFill(
  type: GraphQLInputType,
  defaultValue: unknown,
  cache: Map<string, Fill | undefined | 'pending'>,
): Fill | undefined {
  const ownDefault = defaultValue !== undefined && !isNonNullType(type);
  const nested = typeFill(type, cache);
  if (!ownDefault && !nested) return undefined;
  return (value) => {
    if (value === null && ownDefault) return defaultValue;
    return nested && value !== null && value !== undefined ? nested(value) : value;
  };
}

export function applyNullArgumentDefaults(schema: GraphQLSchema): GraphQLSchema {
  const cache = new Map<string, Fill | undefined | 'pending'>();
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      const fills = Object.entries(field.args ?? {}).flatMap(([name, arg]) => {
        const fill = targetFill(arg.type, arg.defaultValue, cache);
        return fill ? [[name, fill] as const] : [];
      });
      if (fills.length === 0) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args: Record<string, unknown>, context, info) {
          const filled = { ...args };
          for (const [name, fill] of fills) {
            if (name in filled) filled[name] = fill(filled[name]);
          }
          return resolve(source, filled, context, info);
        },
      };
    },
  });
}
