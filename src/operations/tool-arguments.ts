/**
 * Arguments a tool takes beyond its operation's variables, read by the MCP layer and never passed to
 * GraphQL: an idempotency key on writes, a confirmation token on tools that ask before acting, and an
 * offset on tools whose answer is a list. Each is advertised only by the tools that take it, and its
 * name is reserved: an operation declaring a variable of that name stops the server at boot.
 */
import { IDEMPOTENCY_KEY_PATTERN } from '../graphql/execute-idempotently.js';
import { orNull, type JsonSchema } from './json-schema.js';

const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';
export const CONFIRMATION_TOKEN_ARGUMENT = 'confirmationToken';
export const OFFSET_ARGUMENT = 'offset';
export const RESERVED_ARGUMENTS = [IDEMPOTENCY_KEY_ARGUMENT, CONFIRMATION_TOKEN_ARGUMENT, OFFSET_ARGUMENT];

/** Longest confirmation token accepted (they are about 200 characters). */
const MAX_TOKEN_LENGTH = 1024;
/** Highest offset accepted: more than any list a tool returns today, and a bound on the work asked. */
const MAX_OFFSET = 100_000;

/**
 * The checked form of each argument (tools/call validates against it). A null means "not given", as
 * models in strict mode send every key and null for those they do not use.
 */
const ARGUMENT_SCHEMAS: Record<string, JsonSchema> = {
  [IDEMPOTENCY_KEY_ARGUMENT]: orNull({ type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source }),
  [CONFIRMATION_TOKEN_ARGUMENT]: orNull({ type: 'string', minLength: 1, maxLength: MAX_TOKEN_LENGTH }),
  [OFFSET_ARGUMENT]: orNull({ type: 'integer', minimum: 0, maximum: MAX_OFFSET }),
};

/**
 * The listed form, what tools/list shows: the meaning of these arguments is said once, in the server's
 * instructions (mcp-server.ts), not in every tool that takes them.
 */
const LISTED_ARGUMENT_SCHEMAS: Record<string, JsonSchema> = {
  [IDEMPOTENCY_KEY_ARGUMENT]: { type: 'string', maxLength: 128 },
  [CONFIRMATION_TOKEN_ARGUMENT]: { type: 'string' },
  [OFFSET_ARGUMENT]: { type: 'integer', minimum: 0 },
};

/** Which of the extra arguments a tool takes. */
interface ToolArgumentOptions {
  write: boolean;
  confirm: boolean;
  list: boolean;
  /** `strict` for validation, `listed` for tools/list. */
  form: 'strict' | 'listed';
}

export function withToolArguments(inputSchema: JsonSchema, options: ToolArgumentOptions): JsonSchema {
  const names = [
    ...(options.write ? [IDEMPOTENCY_KEY_ARGUMENT] : []),
    ...(options.confirm ? [CONFIRMATION_TOKEN_ARGUMENT] : []),
    ...(options.list ? [OFFSET_ARGUMENT] : []),
  ];
  if (names.length === 0) return inputSchema;
  return {
    ...inputSchema,
    properties: {
      ...inputSchema.properties,
      ...Object.fromEntries(
        names.map((name) => [
          name,
          (options.form === 'strict' ? ARGUMENT_SCHEMAS : LISTED_ARGUMENT_SCHEMAS)[name]!,
        ]),
      ),
    },
  };
}

/** A call's arguments split into the operation's variables and the extra arguments. */
export interface SplitArguments {
  variables: Record<string, unknown>;
  idempotencyKey?: string;
  confirmationToken?: string;
  offset?: number;
}

/** Runs after the arguments were validated against the tool's inputSchema, so the types hold. */
export function splitToolArguments(args: Record<string, unknown>): SplitArguments {
  const {
    [IDEMPOTENCY_KEY_ARGUMENT]: idempotencyKey,
    [CONFIRMATION_TOKEN_ARGUMENT]: confirmationToken,
    [OFFSET_ARGUMENT]: offset,
    ...variables
  } = args;
  return {
    variables,
    ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
    ...(typeof confirmationToken === 'string' ? { confirmationToken } : {}),
    ...(typeof offset === 'number' ? { offset } : {}),
  };
}
