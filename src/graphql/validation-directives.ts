/**
 * Enforces @range, @size and @pattern (declared in schema/directives.graphql) on arguments and input
 * fields, before the resolver runs, so a violation writes nothing (docs/contract.md, Validation directives). Constraints are
 * compiled once per field at start-up; the per-call cost is a walk over the arguments actually given.
 */
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { AppError } from '../errors.js';

type Check = (value: unknown, path: string) => void;

function violation(path: string, constraint: string, rule: string): AppError {
  return new AppError('BAD_REQUEST', `Invalid value for ${path}: ${rule} (@${constraint})`, {
    field: path,
    constraint,
  });
}

function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string') return [...value].length;
  if (Array.isArray(value)) return value.length;
  return undefined;
}

/** The checks one argument or input field declares, in declaration order. */
function ownChecks(schema: GraphQLSchema, target: GraphQLArgument | GraphQLInputField): Check[] {
  const checks: Check[] = [];
  for (const { min, max } of getDirective(schema, target, 'range') ?? []) {
    checks.push((value, path) => {
      if (typeof value !== 'number') return;
      if ((min != null && value < min) || (max != null && value > max)) {
        const rule =
          min != null && max != null
            ? `must be between ${min} and ${max}`
            : min != null
              ? `must be at least ${min}`
              : `must be at most ${max}`;
        throw violation(path, 'range', rule);
      }
    });
  }
  for (const { min, max } of getDirective(schema, target, 'size') ?? []) {
    checks.push((value, path) => {
      const length = lengthOf(value);
      if (length === undefined) return;
      const unit = typeof value === 'string' ? 'characters' : 'items';
      if (min != null && length < min) throw violation(path, 'size', `must have at least ${min} ${unit}`);
      if (max != null && length > max) throw violation(path, 'size', `must have at most ${max} ${unit}`);
    });
  }
  for (const { regexp } of getDirective(schema, target, 'pattern') ?? []) {
    const pattern = new RegExp(`^(?:${regexp})$`, 'u');
    checks.push((value, path) => {
      if (typeof value === 'string' && !pattern.test(value))
        throw violation(path, 'pattern', 'has the wrong format');
    });
  }
  return checks;
}

/**
 * Builds the check for a value of `type`, descending into lists and input objects. Returns undefined when
 * nothing inside the type is constrained, so unconstrained arguments cost nothing at run time.
 */
function typeCheck(
  schema: GraphQLSchema,
  type: GraphQLInputType,
  cache: Map<string, Check | undefined | 'pending'>,
): Check | undefined {
  const inner = getNullableType(type);
  if (isListType(inner)) {
    const itemCheck = typeCheck(schema, inner.ofType, cache);
    if (!itemCheck) return undefined;
    return (value, path) => {
      if (Array.isArray(value)) value.forEach((item, i) => itemCheck(item, `${path}[${i}]`));
    };
  }
  if (!isInputObjectType(inner)) return undefined;
  const cached = cache.get(inner.name);
  // A recursive input type refers back to itself: resolve the reference lazily.
  if (cached === 'pending')
    return (value, path) => (cache.get(inner.name) as Check | undefined)?.(value, path);
  if (cache.has(inner.name)) return cached as Check | undefined;
  cache.set(inner.name, 'pending');
  const fieldChecks = Object.values(inner.getFields()).flatMap((field) => {
    const check = targetCheck(schema, field, cache);
    return check ? [[field.name, check] as const] : [];
  });
  const check: Check | undefined =
    fieldChecks.length === 0
      ? undefined
      : (value, path) => {
          if (value === null || typeof value !== 'object') return;
          for (const [name, fieldCheck] of fieldChecks) {
            const fieldValue = (value as Record<string, unknown>)[name];
            if (fieldValue !== undefined && fieldValue !== null) fieldCheck(fieldValue, `${path}.${name}`);
          }
        };
  cache.set(inner.name, check);
  return check;
}

function targetCheck(
  schema: GraphQLSchema,
  target: GraphQLArgument | GraphQLInputField,
  cache: Map<string, Check | undefined | 'pending'>,
): Check | undefined {
  const checks = ownChecks(schema, target);
  const nested = typeCheck(schema, target.type, cache);
  if (nested) checks.push(nested);
  if (checks.length === 0) return undefined;
  return (value, path) => checks.forEach((check) => check(value, path));
}

export function applyValidationDirectives(schema: GraphQLSchema): GraphQLSchema {
  const cache = new Map<string, Check | undefined | 'pending'>();
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      const argChecks = Object.entries(field.args ?? {}).flatMap(([name, arg]) => {
        const check = targetCheck(schema, { ...arg, name } as GraphQLArgument, cache);
        return check ? [[name, check] as const] : [];
      });
      if (argChecks.length === 0) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args, context, info) {
          for (const [name, check] of argChecks) {
            const value = (args as Record<string, unknown>)[name];
            if (value !== undefined && value !== null) check(value, name);
          }
          return resolve(source, args, context, info);
        },
      };
    },
  });
}
