/**
 * The one execution pipeline (STYLE habit 1): /graphql and every in-process caller parse, validate,
 * bound, execute and classify through these functions, with the same rules and the same formatter.
 */
import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  getOperationAST,
  parse as graphqlParse,
  specifiedRules,
  validate as graphqlValidate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { admitOperation } from './admit-operation.js';
import { createOperationCompiler, type OperationCompiler } from './compile-operation.js';
import type { CallContext } from './context.js';
import { classifyError, classifyRequestError, type InternalErrorSink } from './format-error.js';
import { checkIdempotencyKey, executeIdempotently } from './execute-idempotently.js';
import { executeWithinPolicy } from './execute-within-policy.js';
import { checkDocumentSize, checkOperationLimits, type OperationLimits } from './limits.js';
import type { ResultCache } from './result-cache.js';

/** Largest number of tokens a document may have: bounds parser work before validation sees it. */
const MAX_TOKENS = 5000;
/**
 * Deepest bracket nesting ({, [, ( together) a document may have. graphql-js parses recursively and
 * overflowed the stack at about 2,400 nested list literals (the "Maximum call stack" message reached the
 * client); no sensible document comes near this, GRAPHQL_MAX_DEPTH's largest setting included.
 */
const MAX_NESTING = 128;
/** Distinct documents whose parse result is remembered; curated and repeated queries stay hot. */
const PARSE_CACHE_SIZE = 500;
/**
 * The cache is also bounded by the source characters it holds (an AST is many times its source), and a
 * document larger than one entry's share is never kept: 500 distinct 100 KB bodies would otherwise pin
 * hundreds of megabytes.
 */
const PARSE_CACHE_CHARACTERS = 1_000_000;
const PARSE_CACHE_LARGEST_SOURCE = 20_000;

/**
 * graphql-js stops OverlappingFieldsCanBeMerged when a document needs too many field comparisons (its
 * own bound on that rule's super-linear worst case) and says only "Validation aborted.".
 */
function explainAbort(error: GraphQLError): GraphQLError {
  if (error.message !== 'Validation aborted.') return error;
  return new GraphQLError(
    'The document repeats fields too often to be checked; merge repeated fields and fragment spreads',
    { extensions: { classification: 'BAD_REQUEST', limit: 'overlap' } },
  );
}

/**
 * Refuses a document nested deeper than MAX_NESTING before the recursive parser sees it. The lexer is
 * iterative, so this is one linear pass, stopped at the token bound the parser enforces anyway.
 */
function assertNesting(source: string): void {
  const lexer = new Lexer(new Source(source));
  let depth = 0;
  let tokens = 0;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > MAX_TOKENS) return;
    const kind = token.kind;
    if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
      if (++depth > MAX_NESTING) {
        throw new GraphQLError(`Syntax Error: the document is nested more than ${MAX_NESTING} levels deep`, {
          extensions: { classification: 'BAD_REQUEST', limit: 'nesting' },
        });
      }
    } else if (kind === TokenKind.BRACE_R || kind === TokenKind.BRACKET_R || kind === TokenKind.PAREN_R) {
      depth -= 1;
    }
  }
}

export interface RunRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  context: CallContext;
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
  /** Wraps execution, for /graphql and in-process callers alike (traces: src/telemetry/trace-execute.ts). */
  instrument?: (execute: Executor['execute']) => Executor['execute'],
  cache?: ResultCache,
  /** Compiles operations (graphql-jit where exact); without it graphql-js runs every operation. */
  compiler: OperationCompiler = createOperationCompiler(schema, { jit: 'off' }),
): Executor {
  const parsed = new LRUCache<string, DocumentNode>({
    max: PARSE_CACHE_SIZE,
    maxSize: PARSE_CACHE_CHARACTERS,
    maxEntrySize: PARSE_CACHE_LARGEST_SOURCE,
    sizeCalculation: (_document, source) => Math.max(1, source.length),
  });
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  function parse(input: string | Source): DocumentNode {
    const source = typeof input === 'string' ? input : input.body;
    const hit = parsed.get(source);
    if (hit) return hit;
    assertNesting(source);
    const document = graphqlParse(source, { maxTokens: MAX_TOKENS });
    // Over maxEntrySize, set() keeps nothing: a large document is parsed again next time.
    parsed.set(source, document);
    return document;
  }

  function validate(_schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
    let errors = validated.get(document);
    if (!errors) {
      // Linear bounds first: graphql-js's OverlappingFieldsCanBeMerged is super-linear in same-named
      // fields and nested fragments (a 40-level nested fragment chain of 600 tokens took 100 ms), so a
      // document too big, too deep or too costly is refused before it runs. The operation limits skip
      // what they cannot resolve (unknown fields, fragments, cycles), which validation then reports.
      errors = checkDocumentSize(document);
      if (errors.length === 0) errors = checkOperationLimits(schema, document, limits);
      if (errors.length === 0)
        errors = graphqlValidate(schema, document, specifiedRules, { maxErrors: 20 }).map(explainAbort);
      validated.set(document, errors);
    }
    return errors;
  }

  async function executeOperation(args: ExecutionArgs): Promise<ExecutionResult> {
    const context = args.contextValue as CallContext;
    const { idempotencyKey } = context;
    // A malformed key is refused like any malformed request: before it counts against a quota.
    const badKey = idempotencyKey === undefined ? undefined : checkIdempotencyKey(idempotencyKey);
    if (badKey) return badKey;
    const refused = await admitOperation(context);
    if (refused) return refused;
    const operation = getOperationAST(args.document, args.operationName)?.operation;
    const key =
      operation === 'query'
        ? cache?.keyOf(args.document, args.operationName, args.variableValues, context.viewer)
        : undefined;
    // A shared result stands in for execution only when execution would run at all and tell nothing
    // more: not for a caller who cancelled or who asked for progress (the resolvers report it), and not
    // while the circuit is open (then every call answers UNAVAILABLE).
    const served =
      key !== undefined &&
      !context.signal?.aborted &&
      !context.reportProgress &&
      context.store.policy.state() === 'closed';
    if (served) {
      const hit = cache!.get(key);
      if (hit) return hit;
    }
    const generation = cache?.generation() ?? 0;
    const executeCompiled = compiler.executorFor(args.document, args.operationName, context);
    const run = async (callContext: CallContext): Promise<ExecutionResult> => {
      const result = await executeWithinPolicy(callContext, operation, (contextValue) =>
        executeCompiled({ ...args, schema, contextValue }),
      );
      // Whatever its outcome, a mutation may have written (a deadline can fall after its commit).
      if (operation === 'mutation') cache?.invalidate();
      if (!result.errors) {
        if (key !== undefined) cache!.set(key, result, generation);
        return result;
      }
      const log: InternalErrorSink = (error, reference) =>
        callContext.logger.error({ err: error, reference }, 'error while resolving');
      // Without `data` the errors are variable coercion's (the request's fault); with it, execution's.
      const phase = 'data' in result ? 'execution' : 'request';
      return { ...result, errors: result.errors.map((error) => classifyError(error, log, phase)) };
    };
    if (operation !== 'mutation' || idempotencyKey === undefined || !context.viewer) return run(context);
    return executeIdempotently(
      context,
      {
        key: idempotencyKey,
        document: args.document,
        operationName: args.operationName,
        variables: args.variableValues,
      },
      run,
    );
  }

  const execute = instrument ? instrument(executeOperation) : executeOperation;

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
      // In-process callers run documents the server chose (curated operations, resource queries).
      compiler.trust(request.document);
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
