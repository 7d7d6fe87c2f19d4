/**
 * The schema tools (MCP_SCHEMA_TOOLS, docs/mcp.md, Schema tools): searchSchema, validateGraphQL and
 * executeGraphQL, for the long tail of questions no curated tool answers. They are catalogue entries
 * (src/operations/schema-tool.ts), so tools/list shows them only to callers who may call them, a token
 * without graphql:execute meets the same insufficient_scope challenge as for any tool, and the tool
 * runner checks their arguments, audits and counts them as it does every call. The scope gates the tool;
 * what a document may reach is still decided per field by the schema's @auth rules, in the executor.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { Identity } from '../auth/identity.js';
import { assertAllowed, type AuthRule } from '../graphql/auth-directives.js';
import type { CallContext } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { OperationLimits } from '../graphql/limits.js';
import { createOperationAccess } from '../graphql/operation-access.js';
import { createSchemaSearch } from '../graphql/search-schema.js';
import { isAppError } from '../errors.js';
import { createArgumentValidatorCompiler } from '../operations/argument-validator.js';
import { orNull, type JsonSchema } from '../operations/json-schema.js';
import type { SchemaTool } from '../operations/schema-tool.js';
import {
  IDEMPOTENCY_KEY_ARGUMENT,
  IDEMPOTENCY_KEY_SCHEMA,
  OFFSET_ARGUMENT,
  OFFSET_SCHEMA,
} from '../operations/tool-arguments.js';
import { defaultToolSettings } from '../operations/tool-settings.js';
import { CHARS_PER_TOKEN, sizeOf } from '../operations/tool-size.js';
import { createGraphQLRunner, type ExecuteArguments } from './execute-graphql.js';
import { toolFailure, toolResultText } from './to-call-tool-result.js';
import { createGraphQLValidator } from './validate-graphql.js';

type SchemaToolsMode = 'off' | 'read' | 'write';

/** The scope that gates the three tools, beside sign-in. */
const EXECUTE_SCOPE = 'graphql:execute';
const GATE: AuthRule = { requires: 'USER', scopes: [EXECUTE_SCOPE] };

/**
 * Most SDL one searchSchema answer holds, in estimated tokens: an agent's context is the constraint
 * (agents that introspect whole schemas burn it), and the answer says what it left out.
 */
const SEARCH_BUDGET_TOKENS = 1500;
/** How far from a match the types it leads to are printed whole. */
const NEIGHBOUR_DEPTH = 1;
/** Longest document taken; the parser's token bound (5,000) refuses most long before. */
const MAX_DOCUMENT_CHARS = 100_000;

export interface SchemaToolsDependencies {
  executor: Executor;
  limits: OperationLimits;
  mode: SchemaToolsMode;
  /** MCP_RESULT_MAX_CHARS. */
  resultMaxChars: number;
}

/** The `{data, errors}` envelope of a successful answer that is not an execution result. */
function answer(data: unknown): CallToolResult {
  const structured = { data, errors: [] };
  return {
    content: [{ type: 'text', text: toolResultText(structured) }],
    structuredContent: structured,
    isError: false,
  };
}

const envelopeOf = (data: JsonSchema, extra: Record<string, JsonSchema> = {}): Tool['outputSchema'] =>
  ({
    type: 'object',
    properties: { data: orNull(data), errors: { type: 'array', items: { type: 'object' } }, ...extra },
    required: ['data', 'errors'],
  }) as Tool['outputSchema'];

/**
 * A schema tool's arguments, written once: tools/list shows each with the bounds tools/call checks it
 * against, so a client learns every limit before it tries.
 */
interface ToolInput {
  properties: Record<string, JsonSchema>;
  required: string[];
}

/** What tools/list shows: the arguments as written, unknown keys refused. */
function listedInputSchema({ properties, required }: ToolInput): Tool['inputSchema'] {
  const listed: JsonSchema = { type: 'object', properties, required, additionalProperties: false };
  return listed as Tool['inputSchema'];
}

/**
 * What tools/call checks: the same, with a null accepted for an optional argument (models in strict mode
 * send every key, and null for those they do not use), meaning "not given" as omitting it does.
 */
function strictInputSchema({ properties, required }: ToolInput): JsonSchema {
  const accepting = (name: string, schema: JsonSchema) => (required.includes(name) ? schema : orNull(schema));
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, accepting(name, s)])),
    required,
    additionalProperties: false,
  };
}

/** The gate's refusal for this caller (UNAUTHORIZED anonymous, FORBIDDEN without the scope), if any. */
function gateRefusal(viewer: Identity | null, toolName: string): CallToolResult | undefined {
  try {
    assertAllowed(viewer, GATE, toolName);
    return undefined;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return toolFailure(error.classification, error.message, error.extensions);
  }
}

export function createSchemaTools(deps: SchemaToolsDependencies): SchemaTool[] {
  if (deps.mode === 'off') return [];
  const { executor } = deps;
  const { schema } = executor;
  const writes = deps.mode === 'write';
  const compile = createArgumentValidatorCompiler();
  const search = createSchemaSearch(schema);
  const validate = createGraphQLValidator({
    executor,
    schema,
    limits: deps.limits,
    access: createOperationAccess(schema),
    writes,
  });
  const execute = createGraphQLRunner({ executor, writes, resultMaxChars: deps.resultMaxChars });
  const document: JsonSchema = {
    type: 'string',
    minLength: 1,
    maxLength: MAX_DOCUMENT_CHARS,
    description: 'A GraphQL document',
  };
  const variables: JsonSchema = { type: 'object' };
  const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

  const entry = (
    { input, ...listed }: Omit<Tool, 'inputSchema'> & { input: ToolInput },
    run: (args: Record<string, unknown>, context: CallContext) => Promise<CallToolResult> | CallToolResult,
  ): SchemaTool => {
    const tool: Tool = { ...listed, inputSchema: listedInputSchema(input) };
    return {
      kind: 'schema',
      toolName: tool.name,
      requiredScopes: GATE.scopes,
      requiredRole: 'USER',
      confirm: false,
      settings: defaultToolSettings(),
      validateArguments: compile(strictInputSchema(input)),
      tool,
      run: async (args, context) => gateRefusal(context.viewer, tool.name) ?? run(args, context),
    };
  };

  return [
    entry(
      {
        name: 'searchSchema',
        title: 'Search Schema',
        description:
          'Finds the GraphQL types, fields and arguments you may use whose names or descriptions hold the ' +
          'keywords: minified SDL with descriptions, the types they lead to and the root fields that reach ' +
          'them, within a budget (tokens, omitted). Search before writing a query for executeGraphQL.',
        input: {
          properties: {
            query: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              description: 'Keywords, e.g. "director rating"',
            },
          },
          required: ['query'],
        },
        outputSchema: envelopeOf({
          type: 'object',
          properties: {
            sdl: { type: 'string' },
            matches: { type: 'array', items: { type: 'string' } },
            omitted: { type: 'integer' },
            depth: { type: 'integer' },
            tokens: { type: 'integer' },
          },
        }),
        annotations: readOnly,
      },
      (args, context) => {
        const found = search({
          keywords: args.query as string,
          viewer: context.viewer,
          mutations: writes,
          maxChars: SEARCH_BUDGET_TOKENS * CHARS_PER_TOKEN,
          depth: NEIGHBOUR_DEPTH,
        });
        // The answer's own size, in the estimate tools/list sizes are given in (tool-size.ts); counted
        // again once the count is in, since its own digits are part of the answer.
        const data = { ...found, tokens: 0 };
        data.tokens = sizeOf({ data, errors: [] }).tokens;
        data.tokens = sizeOf({ data, errors: [] }).tokens;
        return answer(data);
      },
    ),
    entry(
      {
        name: 'validateGraphQL',
        title: 'Validate GraphQL',
        description:
          'Checks a GraphQL document without running it: problems with their locations, whether you may ' +
          "use every field, and each operation's depth and cost against the limits.",
        input: { properties: { query: document, variables }, required: ['query'] },
        outputSchema: envelopeOf({
          type: 'object',
          properties: {
            valid: { type: 'boolean' },
            problems: { type: 'array', items: { type: 'object' } },
            operations: { type: 'array', items: { type: 'object' } },
            limits: { type: 'object' },
          },
        }),
        annotations: readOnly,
      },
      async (args, context) => {
        const { query } = args as { query: string; variables?: Record<string, unknown> | null };
        return answer(validate(query, args.variables as Record<string, unknown> | null, context.viewer));
      },
    ),
    entry(
      {
        name: 'executeGraphQL',
        title: 'Execute GraphQL',
        description:
          `Runs a GraphQL ${writes ? 'query or mutation' : 'query'} as you, with the same rules as the API; ` +
          "data is GraphQL's data. Find fields with searchSchema first.",
        input: {
          properties: {
            query: document,
            variables,
            operationName: { type: 'string', minLength: 1, maxLength: 200 },
            [OFFSET_ARGUMENT]: OFFSET_SCHEMA,
            ...(writes ? { [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } : {}),
          },
          required: ['query'],
        },
        outputSchema: envelopeOf({ type: 'object' }, { truncated: { type: 'object' } }),
        annotations: writes
          ? { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
          : readOnly,
      },
      (args, context) => execute(args as ExecuteArguments & Record<string, unknown>, context),
    ),
  ];
}
