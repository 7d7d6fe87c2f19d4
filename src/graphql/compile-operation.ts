/**
 * Compiles each operation once (graphql-jit) and runs it compiled where that is exact, graphql-js where
 * it is not. Compilation is per document and operation name, keyed by the document object itself: the
 * executor's parse cache hands repeated /graphql sources the same document, and curated operations keep
 * theirs for the catalogue's life, so both compile once; a document dropped from the parse cache takes
 * its compiled form with it (WeakMap). By default (`repeated`) a document is compiled on its second
 * run, not its first: compiling costs far more than one execution, and a client sending ever new
 * documents must not make the server compile each one. `always` compiles on the first run (the test
 * suites use it, so every operation they run is the compiled one); `off` runs everything by graphql-js.
 *
 * What graphql-jit does not do as graphql-js does, and how each is kept exact:
 * - variable coercion: its messages differ; a call whose variables it refuses (no resolver has run yet)
 *   is run again by graphql-js, which answers with its own message. It does not know @oneOf input
 *   objects: variables of an operation that can carry one are checked by graphql-js first;
 * - errors: its error objects carry no nodes, source or `extensions` object of their own; each is
 *   rebuilt as graphql-js's located error (message, locations, path, original error and extensions);
 * - introspection (`__schema`, `__type`): left to graphql-js, decided at compile time, as is any
 *   operation graphql-jit fails to compile.
 * Everything else (resolvers with their @auth, validation and null-default wrappers, dataloaders,
 * abstract types, custom scalars, serial mutations, null propagation) runs through the schema's own
 * resolvers and serializers in both, and the test suites run with it on.
 */
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import {
  BREAK,
  GraphQLError,
  execute as graphqlExecute,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInputObjectType,
  typeFromAST,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
  type SourceLocation,
  type VariableDefinitionNode,
} from 'graphql';
import type { PromiseOrValue } from 'graphql/jsutils/PromiseOrValue.js';

export type ExecuteOperation = (args: ExecutionArgs) => PromiseOrValue<ExecutionResult>;

export type Engine = 'graphql-jit' | 'graphql-js';

/** When operations are compiled (GRAPHQL_JIT). */
export type JitMode = 'repeated' | 'always' | 'off';

/** Told once per compiled operation which engine runs it, and why not the compiled one. */
export type CompileObserver = (operationName: string | undefined, engine: Engine, reason?: string) => void;

export interface OperationCompiler {
  /** The function that runs this operation of this document (compiled on first use). */
  executorFor(document: DocumentNode, operationName: string | null | undefined): ExecuteOperation;
}

const runWithGraphqlJs: ExecuteOperation = (args) => graphqlExecute(args);

/** Whether the document asks for schema introspection (which graphql-js answers, as it always has). */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Whether a value of this input type can hold a @oneOf input object, at any depth. */
function canHoldOneOf(type: GraphQLInputType, seen = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  if (named.isOneOf) return true;
  seen.add(named.name);
  return Object.values(named.getFields()).some((field) => canHoldOneOf(field.type, seen));
}

/** graphql-jit's error as graphql-js would have raised it: a located error with its original's extensions. */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const located = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError ?? undefined,
  });
  // graphql-js computes locations from AST nodes, which graphql-jit does not keep: carry them over.
  if (error.locations?.length)
    (located as { locations?: readonly SourceLocation[] }).locations = error.locations;
  return located;
}

function asGraphqlJsResult(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  return { data: result.data, errors: result.errors.map(asGraphqlJsError) };
}

export function createOperationCompiler(
  schema: GraphQLSchema,
  options: { jit: JitMode; onCompiled?: CompileObserver },
): OperationCompiler {
  /** undefined: never run; null: run once (by graphql-js); else how it runs from now on. */
  const compiled = new WeakMap<DocumentNode, Map<string, ExecuteOperation | null>>();

  function compile(document: DocumentNode, operationName: string | undefined): ExecuteOperation {
    const operation = getOperationAST(document, operationName);
    const fallBack = (reason: string) => {
      options.onCompiled?.(operation?.name?.value, 'graphql-js', reason);
      return runWithGraphqlJs;
    };
    if (introspects(document)) return fallBack('introspection');
    let query: CompiledQuery | ExecutionResult;
    try {
      query = compileQuery(schema, document, operationName);
    } catch (error) {
      return fallBack(`graphql-jit could not compile it: ${(error as Error).message}`);
    }
    if (!isCompiledQuery(query)) {
      return fallBack(`graphql-jit could not compile it: ${query.errors?.[0]?.message ?? 'unknown'}`);
    }
    options.onCompiled?.(operation?.name?.value, 'graphql-jit');
    const definitions = operation?.variableDefinitions ?? [];
    const oneOfVariables: readonly VariableDefinitionNode[] = definitions.some((definition) => {
      const type = typeFromAST(schema, definition.type);
      return type !== undefined && canHoldOneOf(type as GraphQLInputType);
    })
      ? definitions
      : [];
    return (args) => {
      if (
        oneOfVariables.length > 0 &&
        getVariableValues(schema, oneOfVariables, args.variableValues ?? {}, { maxErrors: 1 }).errors
      ) {
        return runWithGraphqlJs(args);
      }
      const result = query.query(args.rootValue, args.contextValue, args.variableValues);
      const finish = (outcome: ExecutionResult) =>
        // Refused variables: nothing ran, so graphql-js can say it in its own words.
        'data' in outcome ? asGraphqlJsResult(outcome) : runWithGraphqlJs(args);
      return result instanceof Promise ? result.then(finish) : finish(result);
    };
  }

  return {
    executorFor(document, operationName) {
      if (options.jit === 'off') return runWithGraphqlJs;
      let byName = compiled.get(document);
      if (!byName) compiled.set(document, (byName = new Map()));
      const name = operationName ?? '';
      const run = byName.get(name);
      if (run) return run;
      if (run === undefined && options.jit === 'repeated') {
        byName.set(name, null);
        return runWithGraphqlJs;
      }
      const compiledRun = compile(document, operationName ?? undefined);
      byName.set(name, compiledRun);
      return compiledRun;
    },
  };
}
