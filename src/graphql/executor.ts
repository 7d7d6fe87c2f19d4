/**
 * The one execution pipeline (docs/architecture.md, The execution pipeline): /graphql and every in-process caller parse, validate,
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
import {
  createOperationCompiler,
  type ExecuteOperation,
  type OperationCompiler,
} from './compile-operation.js';
import type { CallContext, GraphQLContext } from './context.js';
import { classifyError, classifyRequestError, type InternalErrorSink } from './classify-error.js';
import { checkDocumentSize, checkOperationLimits, type OperationLimits } from './limits.js';
import { createLoaders } from './loaders.js';
import { createOperationAccess } from './operation-access.js';
import { EXECUTION_POLICIES } from './policies/execution-policies.js';
import { composePolicies, type Execute } from './policies/execution-policy.js';
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

interface RunRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  context: CallContext;
  /**
   * A document a client wrote (executeGraphQL), not one the server chose: compiled only within the
   * compile budget, as a /graphql document is.
   */
  clientDocument?: boolean;
}

export interface Executor {
  schema: GraphQLSchema;
  /** Parses with a token bound; repeated sources come from a small LRU cache. Throws GraphQLError. */
  parse(source: string | Source): DocumentNode;
  /** Standard rules plus depth and cost limits; the result is cached per document. */
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
  /**
   * Executes through the policies (src/graphql/policies/execution-policies.ts: key check, rate limit,
   * authorization, result cache, idempotency, invalidation, masking, store policy) and writes the
   * execution report into the context's `execution` record.
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

  /**
   * The run each operation's first attempt chose, for its retries: one operation is one run of its plan
   * (a client's document is compiled from its second run, within its principal's budget), however often
   * the store policy repeats it. Chosen on the first attempt, not before the policies, so a call that a
   * policy answers (a refusal, a cached answer) never counts as a run. Keyed by the args object that
   * executeOperation makes for each operation.
   */
  const chosenRuns = new WeakMap<ExecutionArgs, ExecuteOperation>();
  function runOf(args: ExecutionArgs, context: CallContext): ExecuteOperation {
    let run = chosenRuns.get(args);
    if (!run) chosenRuns.set(args, (run = compiler.executorFor(args.document, args.operationName, context)));
    return run;
  }

  /** The operation itself, once per attempt the store policy makes, with loaders of its own. */
  const executeOnce: Execute = async ({ args, context, attempt }) => {
    const signal = attempt?.signal ?? context.signal;
    const progress = attempt?.progress ?? { commit: 'none' };
    const contextValue: GraphQLContext = {
      ...context,
      signal,
      execution: progress,
      loaders: createLoaders(context.store, signal),
    };
    const result = await runOf(args, context)({ ...args, schema, contextValue });
    return {
      result,
      report: { attempts: 1, commit: progress.commit, replayed: false, answeredBy: 'execution' },
    };
  };
  const pipeline = composePolicies(
    EXECUTION_POLICIES,
    { cache, access: createOperationAccess(schema) },
    executeOnce,
  );

  async function executeOperation(args: ExecutionArgs): Promise<ExecutionResult> {
    const context = args.contextValue as CallContext;
    const operation = getOperationAST(args.document, args.operationName)?.operation;
    // A copy of its own: a caller's args object run twice is two operations, two runs.
    const { result, report } = await pipeline({ args: { ...args }, context, operation });
    // Callers that read the report from their context (the /graphql route, the tool runner) find it there.
    context.execution.attempts = report.attempts;
    context.execution.commit = report.commit;
    if (report.replayed) context.execution.replayed = true;
    return result;
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
      // Documents the server chose (curated operations, resource queries) are trusted.
      if (!request.clientDocument) compiler.trust(request.document);
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
