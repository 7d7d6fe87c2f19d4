/**
 * Enforces @auth and @selfOrAdmin (declared in schema/directives.graphql) before the resolver runs, so
 * /graphql and every MCP tool obey the same rule (docs/contract.md, Identity; docs/architecture.md, Policies). Rules are read once
 * per field at start-up; a field without one costs nothing at run time. `authRuleOf` is also what the
 * operation catalogue uses to derive each tool's scopes, so the schema is the one source of both.
 */
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLSchema,
} from 'graphql';
import { ALL_SCOPES, type Identity } from '../auth/identity.js';
import { AppError, unauthorized } from '../errors.js';
import type { RoleName } from '../store/tables.js';
import type { GraphQLContext } from './context.js';

export interface AuthRule {
  /** USER: any signed-in caller; ADMIN: administrators only; undefined: anyone, anonymous included. */
  requires?: RoleName;
  /** Scopes a caller's token must carry; anonymous callers are not asked for them. */
  scopes: readonly string[];
}

/** The @auth rule of a field, or undefined when it has none. */
export function authRuleOf(
  schema: GraphQLSchema,
  field: GraphQLField<unknown, unknown> | GraphQLFieldConfig<unknown, unknown>,
): AuthRule | undefined {
  const directive = getDirective(schema, field, 'auth')?.[0];
  if (!directive) return undefined;
  return {
    requires: (directive.requires as RoleName | null) ?? undefined,
    scopes: (directive.scopes as string[] | null) ?? [],
  };
}

/** The scopes of `required` that this caller's token lacks; anonymous callers lack none. */
export function missingScopes(viewer: Identity | null, required: readonly string[]): string[] {
  if (!viewer) return [];
  return required.filter((scope) => !viewer.scopes.includes(scope));
}

/** The classified refusal for a caller that may not use `fieldName`; undefined when it may. */
export function refusalOf(viewer: Identity | null, rule: AuthRule, fieldName: string): AppError | undefined {
  if (rule.requires && !viewer) return unauthorized(fieldName);
  if (viewer && rule.requires === 'ADMIN' && viewer.role !== 'ADMIN') {
    return new AppError('FORBIDDEN', `${fieldName} needs the ADMIN role`, { requiredRole: 'ADMIN' });
  }
  const missing = missingScopes(viewer, rule.scopes);
  if (missing.length > 0) {
    return new AppError(
      'FORBIDDEN',
      `This token lacks the scope ${missing.join(', ')} needed by ${fieldName}`,
      { requiredScopes: missing },
    );
  }
  return undefined;
}

/** Throws the classified refusal for a caller that may not use `fieldName`; returns when it may. */
export function assertAllowed(viewer: Identity | null, rule: AuthRule, fieldName: string): void {
  const refusal = refusalOf(viewer, rule, fieldName);
  if (refusal) throw refusal;
}

const OWN_ACCOUNT = Symbol('own account');

/**
 * Marks a user row as the caller's own although the request carried no token for it: register and login
 * return the account the caller has just proved to own.
 */
export function asOwnAccount<T extends object>(user: T): T {
  return Object.assign({ ...user }, { [OWN_ACCOUNT]: true });
}

/** Whether this caller is the user `user` or an administrator. */
function isSelfOrAdmin(
  viewer: Identity | null,
  user: { id: number; username: string; [OWN_ACCOUNT]?: true },
): boolean {
  if (user[OWN_ACCOUNT]) return true;
  if (!viewer) return false;
  if (viewer.role === 'ADMIN') return true;
  // Local tokens name the account id; an external identity's account is named after its subject.
  return viewer.userId !== null ? viewer.userId === user.id : viewer.subject === user.username;
}

export function applyAuthDirectives(schema: GraphQLSchema): GraphQLSchema {
  const problems: string[] = [];
  const transformed = mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const rule = authRuleOf(schema, field);
      const selfOrAdmin = getDirective(schema, field, 'selfOrAdmin')?.[0] !== undefined;
      if (!rule && !selfOrAdmin) return field;
      for (const scope of rule?.scopes ?? []) {
        if (!(ALL_SCOPES as readonly string[]).includes(scope))
          problems.push(`${typeName}.${fieldName}: unknown scope "${scope}"`);
      }
      if (selfOrAdmin && typeName !== 'User')
        problems.push(`${typeName}.${fieldName}: @selfOrAdmin applies to fields of User only`);
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args, context: GraphQLContext, info) {
          if (rule) assertAllowed(context.viewer, rule, fieldName);
          if (selfOrAdmin && !isSelfOrAdmin(context.viewer, source as { id: number; username: string })) {
            throw new AppError(
              'FORBIDDEN',
              `Only this user and administrators may see ${typeName}.${fieldName}`,
            );
          }
          return resolve(source, args, context, info);
        },
      };
    },
  });
  if (problems.length > 0) throw new Error(`The schema's @auth rules are wrong:\n  ${problems.join('\n  ')}`);
  return transformed;
}
