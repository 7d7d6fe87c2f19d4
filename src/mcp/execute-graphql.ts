/**
 * The executeGraphQL tool: a caller's own document, run by the one executor as the caller, so every
 * rule of /graphql holds (the document's bounds, @auth and @selfOrAdmin per field, the rate limit, the
 * deadline, masking, idempotency keys, the result cache), then mapped as a curated tool's answer is
 * (to-call-tool-result.ts) with GraphQL's whole `data`. Beyond /graphql only what an agent needs: a
 * document refused before it runs is counted at its points as /graphql counts it; mutations run only
 * when the server allows them here; and the answer fits the response budget: a query whose one root
 * field is a list or a page is cut as a curated tool's is (fit-result-budget.ts), with the arguments
 * that fetch the rest; any other query over the budget is refused, saying how to ask for less. A
 * write's answer is never refused after it was written.
 */
import {
  GraphQLError,
  getOperationAST,
  isObjectType,
  Kind,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
} from 'graphql';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallContext } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import { requestRefusal } from '../limits/request-refusal.js';
import { refusedDocumentPoints } from '../limits/request-weights.js';
import { deriveResultShape, type ResultShape } from '../operations/result-shape.js';
import { OFFSET_ARGUMENT } from '../operations/tool-arguments.js';
import type { Classification } from '../errors.js';
import { fitResultBudget } from './fit-result-budget.js';
import { toCallToolResult, toolFailure, toolResultText, type ToolError } from './to-call-tool-result.js';

export interface ExecuteArguments {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  offset?: number | null;
  idempotencyKey?: string | null;
}

/** Why this server does not run an operation of this type through executeGraphQL, if it does not. */
export function operationRefusal(
  type: OperationTypeNode,
  writes: boolean,
): { classification: Classification; message: string } | undefined {
  if (type === 'subscription')
    return { classification: 'BAD_REQUEST', message: 'Subscriptions are not served; send a query' };
  if (type === 'mutation' && !writes) {
    return {
      classification: 'FORBIDDEN',
      message: 'executeGraphQL runs queries only on this server; make changes with the write tools',
    };
  }
  return undefined;
}

/**
 * A document refused before it runs costs what parsing and validating it cost: its points, as on
 * /graphql (src/http/check-document.ts). The refusal past the caller's budget, or undefined.
 */
async function chargeRefusedDocument(
  context: CallContext,
  source: string,
): Promise<CallToolResult | undefined> {
  const refusal = await requestRefusal(
    context.limits,
    { viewer: context.viewer, clientAddress: context.clientAddress },
    refusedDocumentPoints(source.length),
    context.logger,
  );
  return refusal && toolFailure('RATE_LIMITED', refusal.message, refusal.extensions);
}

/** The one root field of a query and where its answer can be cut, when it has exactly one. */
function cutPoint(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): { key: string; shape: ResultShape } | undefined {
  const { selections } = operation.selectionSet;
  const root = schema.getRootType(operation.operation);
  const field = selections[0];
  if (operation.operation !== 'query' || selections.length !== 1 || field?.kind !== Kind.FIELD)
    return undefined;
  const definition = isObjectType(root) ? root.getFields()[field.name.value] : undefined;
  const shape = deriveResultShape(definition, field, operation);
  return shape && { key: field.alias?.value ?? field.name.value, shape };
}

const asksForSchema = (operation: OperationDefinitionNode) =>
  operation.selectionSet.selections.some(
    (selection) =>
      selection.kind === Kind.FIELD &&
      (selection.name.value === '__schema' || selection.name.value === '__type'),
  );

export interface GraphQLRunnerDependencies {
  executor: Pick<Executor, 'parse' | 'validate' | 'formatError' | 'run' | 'schema'>;
  /** Whether mutations run (MCP_SCHEMA_TOOLS=write). */
  writes: boolean;
  /** MCP_RESULT_MAX_CHARS. */
  resultMaxChars: number;
}

export function createGraphQLRunner(deps: GraphQLRunnerDependencies) {
  const { executor, resultMaxChars } = deps;
  const { schema } = executor;

  /** Cuts the one root list or page to the budget, the rest by nextArguments; undefined when it cannot be. */
  function cut(
    result: CallToolResult,
    point: { key: string; shape: ResultShape },
    args: ExecuteArguments & Record<string, unknown>,
  ): CallToolResult | undefined {
    const { data, errors } = result.structuredContent as {
      data: Record<string, unknown> | null;
      errors: ToolError[];
    };
    const variables = args.variables ?? {};
    const list = point.shape.kind === 'list';
    const offset = args.offset ?? undefined;
    const inner: CallToolResult = {
      ...result,
      structuredContent: { data: data?.[point.key] ?? null, errors },
    };
    // A list's rest is fetched with this tool's own offset; a page's with the query's page and size
    // variables. What the cut does not see is made room for: the root key and the whole arguments.
    const room = resultMaxChars - JSON.stringify(args).length - point.key.length - 8;
    const fitted = fitResultBudget(inner, point.shape, { args: list ? {} : variables, offset }, room);
    if (fitted === inner) return offset === undefined ? undefined : result;
    const cutAnswer = fitted.structuredContent as {
      data: unknown;
      truncated?: { returned: number; total: number; nextArguments: Record<string, unknown> };
    };
    const { truncated } = cutAnswer;
    const nextArguments = truncated
      ? list
        ? { ...args, [OFFSET_ARGUMENT]: truncated.nextArguments[OFFSET_ARGUMENT] }
        : { ...args, variables: truncated.nextArguments }
      : undefined;
    const structured = {
      data: { ...data, [point.key]: cutAnswer.data },
      errors,
      ...(truncated ? { truncated: { ...truncated, nextArguments } } : {}),
    };
    return {
      ...result,
      structuredContent: structured,
      content: [{ type: 'text', text: toolResultText(structured, args) }],
    };
  }

  return async function executeGraphQL(
    args: ExecuteArguments & Record<string, unknown>,
    context: CallContext,
  ): Promise<CallToolResult> {
    const refused = async (errors: readonly GraphQLError[]) =>
      (await chargeRefusedDocument(context, args.query)) ??
      toCallToolResult(
        { errors: errors.map((error) => executor.formatError(error)) },
        null,
        false,
        undefined,
        args,
      );
    let document: DocumentNode;
    try {
      document = executor.parse(args.query);
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return refused([error]);
    }
    const errors = executor.validate(schema, document);
    if (errors.length > 0) return refused(errors);
    const operation = getOperationAST(document, args.operationName ?? undefined);
    if (!operation) {
      const message = args.operationName
        ? `The document holds no operation named ${args.operationName}`
        : 'Name the operation to run in operationName: the document holds several';
      return toolFailure('BAD_REQUEST', message, { field: 'operationName' }, args);
    }
    const refusal = operationRefusal(operation.operation, deps.writes);
    if (refusal) return toolFailure(refusal.classification, refusal.message, undefined, args);
    const point = cutPoint(schema, operation);
    if (args.offset != null && point?.shape.kind !== 'list') {
      const message = 'offset pages a query whose one root field is a list; this one has none';
      return toolFailure('BAD_REQUEST', message, { field: OFFSET_ARGUMENT }, args);
    }
    const result = await executor.run({
      document,
      operationName: args.operationName,
      variables: args.variables ?? {},
      context,
      clientDocument: true,
    });
    const mapped = toCallToolResult(result, null, false, undefined, args);
    if (operation.operation !== 'query') return mapped;
    const fitted = point ? cut(mapped, point, args) : undefined;
    if (fitted) return fitted;
    const chars = JSON.stringify(mapped.structuredContent).length;
    if (chars <= resultMaxChars) return mapped;
    const hint = asksForSchema(operation)
      ? 'call searchSchema for the part of the schema you need'
      : 'select fewer fields, ask for smaller pages, or page through one root list or page';
    return toolFailure(
      'BAD_REQUEST',
      `The answer is ${chars} characters of JSON, over the budget of ${resultMaxChars}: ${hint}`,
      { limit: 'resultBudget', chars, maxChars: resultMaxChars },
      args,
    );
  };
}
