/**
 * Refuses string input that a store cannot hold, for every argument and input field of every field
 * (variables and literals alike, since it looks at the coerced arguments): a NUL character, which
 * PostgreSQL `text` rejects (an INTERNAL_ERROR there, while SQLite kept it), and an unpaired UTF-16
 * surrogate, which both drivers silently turn into U+FFFD when they encode UTF-8. Both stores answer the
 * same BAD_REQUEST naming the argument, before any resolver runs.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors.js';

// Without the `u` flag, so each half of a surrogate pair is seen on its own.
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws BAD_REQUEST for the first unstorable string in a coerced argument value. */
function assertStorable(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const found = UNSTORABLE.exec(value);
    if (!found) return;
    const what = found[0] === '\0' ? 'a NUL character' : 'an unpaired UTF-16 surrogate';
    throw new AppError('BAD_REQUEST', `Invalid value for ${path}: contains ${what}, which cannot be stored`, {
      field: path,
      constraint: 'storable',
    });
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertStorable(item, `${path}[${i}]`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) assertStorable(inner, `${path}.${key}`);
  }
}

export function applyStorableStrings(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      if (!field.args || Object.keys(field.args).length === 0) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args: Record<string, unknown>, context, info) {
          for (const [name, value] of Object.entries(args)) assertStorable(value, name);
          return resolve(source, args, context, info);
        },
      };
    },
  });
}
