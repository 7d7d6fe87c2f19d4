/**
 * Compiles operations (graphql-jit) and runs them compiled where that is exact, graphql-js where it is
 * not. What is compiled is what the server chose, not what a client sends: compiling costs tens of
 * microseconds of event loop per expanded field (a 6 KB document of 98 fields each spreading a 98-alias
 * interface fragment, inside every document limit, took 0.8 to 2 s and kept megabytes), so
 * - documents the server runs itself (curated operations, resource queries: `trust`) are compiled on
 *   their first run and kept for the document's life (WeakMap: the catalogue holds its documents);
 * - a client's document (GRAPHQL_JIT `repeated`, the default) only from its second run, only under
 *   GRAPHQL_JIT_MAX_FIELDS expanded fields (counted in linear time), and only while its principal's
 *   compile budget lasts (src/graphql/compile-budget.ts); its compiled code lives in an LRU bounded by
 *   the fields it holds. Anything else runs by graphql-js, which answers the same.
 * `curated` compiles only the server's documents; `always` also compiles client documents on their first
 * run (the test suites use it, with a budget out of reach, so every operation they run is compiled);
 * `off` runs everything by graphql-js. Every mode checks @oneOf keys given by nullable variables first
 * (src/graphql/check-one-of-variables.ts), so both engines answer those the same.
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
import { LRUCache } from 'lru-cache';
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
import type { Identity } from '../auth/identity.js';
import { addressKey } from '../limits/address-key.js';
import { createOneOfVariablesCheck, type OneOfVariablesCheck } from './check-one-of-variables.js';
import { createCompileBudget } from './compile-budget.js';
import { countExpandedFields } from './count-expanded-fields.js';

export type ExecuteOperation = (args: ExecutionArgs) => PromiseOrValue<ExecutionResult>;

type Engine = 'graphql-jit' | 'graphql-js';

/** When operations are compiled (GRAPHQL_JIT). */
export type JitMode = 'repeated' | 'curated' | 'always' | 'off';

/** Whose document it is: one the server chose, or a client's (counted against its principal). */
type Origin = 'curated' | 'client';

interface CompileEvent {
  operation: string | undefined;
  engine: Engine;
  origin: Origin;
  /** Why not the compiled one. */
  reason?: string;
  /** The operation's expanded field count (client documents). */
  fields?: number;
  /** Fields the client cache holds after this decision. */
  cachedFields: number;
}

/**
 * Told which engine runs an operation: once per compiled operation, once per document refused for its
 * size, and once per document each time a budget first turns it away.
 */
type CompileObserver = (event: CompileEvent) => void;

/** Who runs a client document: the principal whose budget pays for compiling it. */
interface Caller {
  viewer: Identity | null;
  clientAddress?: string;
}

export interface OperationCompiler {
  /** Marks a document the server chose (a curated operation, a resource's query): compiled on first run. */
  trust(document: DocumentNode): void;
  /** The function that runs this operation of this document for this caller. */
  executorFor(
    document: DocumentNode,
    operationName: string | null | undefined,
    caller?: Caller,
  ): ExecuteOperation;
  /** What the client cache holds. */
  stats(): { clientOperations: number; clientFields: number };
}

export interface CompilerOptions {
  jit: JitMode;
  /** Largest expanded field count of a client document that is compiled (GRAPHQL_JIT_MAX_FIELDS). */
  maxFields?: number;
  /** Fields a principal may have compiled per minute (GRAPHQL_JIT_FIELDS_PER_MINUTE). */
  fieldsPerMinute?: number;
  onCompiled?: CompileObserver;
}

const DEFAULT_MAX_FIELDS = 200;
const DEFAULT_FIELDS_PER_MINUTE = 1000;
/**
 * Fields of compiled client code kept at once. Measured: graphql-jit keeps about 1 to 1.7 KB per field,
 * so this holds some 10 to 17 MB (a few hundred typical documents).
 */
const CLIENT_CACHE_FIELDS = 10_000;

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

/** The operation compiled and made exact, or why graphql-js runs it instead. */
function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): ExecuteOperation | string {
  if (introspects(document)) return 'introspection';
  let query: CompiledQuery | ExecutionResult;
  try {
    query = compileQuery(schema, document, operationName);
  } catch (error) {
    return `graphql-jit could not compile it: ${(error as Error).message}`;
  }
  if (!isCompiledQuery(query)) {
    return `graphql-jit could not compile it: ${query.errors?.[0]?.message ?? 'unknown'}`;
  }
  const definitions = getOperationAST(document, operationName)?.variableDefinitions ?? [];
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

/** The run behind the @oneOf variables check: a refusal is a request error (no data), as coercion's. */
function guarded(guard: OneOfVariablesCheck | undefined, run: ExecuteOperation): ExecuteOperation {
  if (!guard) return run;
  return (args) => {
    const refusal = guard(args.variableValues);
    return refusal ? { errors: [refusal] } : run(args);
  };
}

/** One operation of one document: what is known about it and how it runs. */
interface Plan {
  name: string | undefined;
  /** graphql-js, behind the @oneOf check. */
  interpreted: ExecuteOperation;
  guard: OneOfVariablesCheck | undefined;
  /** How it runs from now on, decided for good (a curated compile, a document graphql-js keeps). */
  settled?: ExecuteOperation;
  fields?: number;
  runs: number;
  toldOverBudget?: boolean;
}

const principalOf = (caller: Caller | undefined) =>
  caller?.viewer ? `user:${caller.viewer.subject}` : `address:${addressKey(caller?.clientAddress)}`;

export function createOperationCompiler(schema: GraphQLSchema, options: CompilerOptions): OperationCompiler {
  const maxFields = options.maxFields ?? DEFAULT_MAX_FIELDS;
  const budget = createCompileBudget({
    fieldsPerMinute: options.fieldsPerMinute ?? DEFAULT_FIELDS_PER_MINUTE,
  });
  const plans = new WeakMap<DocumentNode, Map<string, Plan>>();
  const trusted = new WeakSet<DocumentNode>();
  const clientCompiled = new LRUCache<Plan, ExecuteOperation>({
    maxSize: Math.max(CLIENT_CACHE_FIELDS, maxFields),
    sizeCalculation: (_run, plan) => Math.max(1, plan.fields ?? 1),
  });
  const tell = (plan: Plan, origin: Origin, engine: Engine, reason?: string) =>
    options.onCompiled?.({
      operation: plan.name,
      engine,
      origin,
      reason,
      fields: origin === 'client' ? plan.fields : undefined,
      cachedFields: clientCompiled.calculatedSize,
    });

  function planOf(document: DocumentNode, operationName: string | null | undefined): Plan {
    let byName = plans.get(document);
    if (!byName) plans.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let plan = byName.get(key);
    if (!plan) {
      const guard = createOneOfVariablesCheck(schema, document, operationName);
      plan = {
        name: getOperationAST(document, operationName)?.name?.value,
        guard,
        interpreted: guarded(guard, runWithGraphqlJs),
        runs: 0,
      };
      byName.set(key, plan);
    }
    return plan;
  }

  /** The compiled run, or graphql-js (settled for good) when graphql-jit cannot run it exactly. */
  function compileFor(plan: Plan, document: DocumentNode, operationName: string | undefined, origin: Origin) {
    const compiled = compile(schema, document, operationName);
    if (typeof compiled === 'string') {
      plan.settled = plan.interpreted;
      tell(plan, origin, 'graphql-js', compiled);
      return undefined;
    }
    return guarded(plan.guard, compiled);
  }

  function clientRun(plan: Plan, document: DocumentNode, operationName: string | undefined, caller?: Caller) {
    const cached = clientCompiled.get(plan);
    if (cached) return cached;
    plan.fields ??= countExpandedFields(document, operationName);
    if (plan.fields > maxFields) {
      plan.settled = plan.interpreted;
      tell(
        plan,
        'client',
        'graphql-js',
        `${plan.fields} fields; documents over ${maxFields} are not compiled`,
      );
      return plan.interpreted;
    }
    plan.runs += 1;
    if (options.jit === 'repeated' && plan.runs < 2) return plan.interpreted;
    if (!budget.spend(principalOf(caller), plan.fields)) {
      if (!plan.toldOverBudget) tell(plan, 'client', 'graphql-js', 'over the compile budget');
      plan.toldOverBudget = true;
      return plan.interpreted;
    }
    const run = compileFor(plan, document, operationName, 'client');
    if (!run) return plan.interpreted;
    clientCompiled.set(plan, run);
    plan.toldOverBudget = false;
    tell(plan, 'client', 'graphql-jit');
    return run;
  }

  return {
    trust: (document) => void trusted.add(document),
    executorFor(document, operationName, caller) {
      const plan = planOf(document, operationName);
      if (options.jit === 'off') return plan.interpreted;
      if (plan.settled) return plan.settled;
      const name = operationName ?? undefined;
      if (trusted.has(document)) {
        const run = compileFor(plan, document, name, 'curated');
        if (run) {
          plan.settled = run;
          tell(plan, 'curated', 'graphql-jit');
        }
        return plan.settled!;
      }
      if (options.jit === 'curated') return plan.interpreted;
      return clientRun(plan, document, name, caller);
    },
    stats: () => ({ clientOperations: clientCompiled.size, clientFields: clientCompiled.calculatedSize }),
  };
}
