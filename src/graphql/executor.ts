/**
 * The one execution pipeline (STYLE habit 1): /graphql and every in-process caller parse, validate,
 * bound, execute and classify through these functions, with the same rules and the same formatter.
 */
import {
  GraphQLError,
  execute as graphqlExecute,
  getOperationAST,
  parse as graphqlParse,
  specifiedRules,
  validate as graphqlValidate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type Source,
} from 'graphql';
import type { GraphQLContext } from './context.js';
import { classifyError, classifyRequestError, type InternalErrorSink } from './format-error.js';
import { executeWithinPolicy } from './execute-within-policy.js';
import { checkOperationLimits, type OperationLimits } from './limits.js';

/** Largest number of tokens a document may have: bounds parser work before validation sees it. */
const MAX_TOKENS = 5000;
/** Distinct documents whose parse result is remembered; curated and repeated queries stay hot. */
const PARSE_CACHE_SIZE = 500;

export interface RunRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  context: GraphQLContext;
}

export interface Executor {
  schema: GraphQLSchema;
  /** Parses with a token bound; repeated sources come from a small LRU cache. Throws GraphQLError. */
  parse(source: string | Source): DocumentNode;
  /** Standard rules plus depth and cost limits; the result is cached per document. */
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
  /**
   * Executes under the store policy (deadline, the caller's signal, read retries, circuit) and classifies
   * every error, logging masked ones with the request's logger.
   */
  execute(args: ExecutionArgs): Promise<ExecutionResult>;
  /** The formatter for errors raised outside execution. */
  formatError(error: Readonly<GraphQLError | Error>): GraphQLError;
  /** The whole pipeline for in-process callers: validate, pick the operation, execute. */
  run(request: RunRequest): Promise<ExecutionResult>;
}

/**
 * `onInternal` logs errors masked outside execution (where no request context exists); errors masked
 * during execution are logged with the request's own logger, so each is logged exactly once.
 */
export function createExecutor(
  schema: GraphQLSchema,
  limits: OperationLimits,
  onInternal: InternalErrorSink,
): Executor {
  const parsed = new Map<string, DocumentNode>();
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  function parse(input: string | Source): DocumentNode {
    const source = typeof input === 'string' ? input : input.body;
    const hit = parsed.get(source);
    if (hit) {
      // Re-insert to mark as recently used.
      parsed.delete(source);
      parsed.set(source, hit);
      return hit;
    }
    const document = graphqlParse(source, { maxTokens: MAX_TOKENS });
    parsed.set(source, document);
    if (parsed.size > PARSE_CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
    return document;
  }

  function validate(_schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
    let errors = validated.get(document);
    if (!errors) {
      errors = graphqlValidate(schema, document, specifiedRules, { maxErrors: 20 });
      if (errors.length === 0) errors = checkOperationLimits(schema, document, limits);
      validated.set(document, errors);
    }
    return errors;
  }

  async function execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const context = args.contextValue as GraphQLContext;
    const operation = getOperationAST(args.document, args.operationName)?.operation;
    const result = await executeWithinPolicy(context, operation, (contextValue) =>
      graphqlExecute({ ...args, schema, contextValue }),
    );
    if (!result.errors) return result;
    const log: InternalErrorSink = (error, reference) =>
      context.logger.error({ err: error, reference }, 'error while resolving');
    // Without `data` the errors are variable coercion's (the request's fault); with it, execution's.
    const phase = 'data' in result ? 'execution' : 'request';
    return { ...result, errors: result.errors.map((error) => classifyError(error, log, phase)) };
  }

  return {
    schema,
    parse,
    validate,
    execute,
    formatError: (error) => classifyRequestError(error, onInternal),
    async run(request) {
      const errors = validate(schema, request.document);
      if (errors.length > 0) return { errors: errors.map((e) => classifyError(e, onInternal)) };
      // A document with several operations needs operationName to pick one; curated ones have a single one.
      if (!getOperationAST(request.document, request.operationName ?? undefined)) {
        return {
          errors: [
            new GraphQLError('Name the operation to run: the document holds several', {
              extensions: { classification: 'BAD_REQUEST' },
            }),
          ],
        };
      }
      return execute({
        schema,
        document: request.document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue: request.context,
      });
    },
  };
}
