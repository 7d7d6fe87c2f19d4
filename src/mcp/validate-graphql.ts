/**
 * The validateGraphQL tool's answer: a document checked exactly as the executor would check it before
 * running it (parse and its bounds, the operation limits, graphql-js's rules, the variables, the
 * caller's access to every field, and whether this server runs its operation type through
 * executeGraphQL), and the measures the limits compared, without executing anything.
 */
import {
  GraphQLError,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import type { Identity } from '../auth/identity.js';
import type { Executor } from '../graphql/executor.js';
import { measureOperations, type OperationLimits } from '../graphql/limits.js';
import type { OperationAccess } from '../graphql/operation-access.js';
import { operationRefusal } from './execute-graphql.js';

export interface ValidationProblem {
  message: string;
  locations?: { line: number; column: number }[];
  classification: string;
  /** Which bound the document broke (depth, cost, aliases, selections, nesting...), when it is one. */
  limit?: string;
}

export interface ValidationAnswer {
  valid: boolean;
  problems: ValidationProblem[];
  /** Each operation's measures, as the limits compare them. */
  operations: { name: string | null; type: string; depth: number; cost: number }[];
  limits: OperationLimits;
}

function problemOf(error: GraphQLError, classification = 'BAD_REQUEST'): ValidationProblem {
  const limit = error.extensions?.limit;
  return {
    message: error.message,
    ...(error.locations?.length
      ? { locations: error.locations.map(({ line, column }) => ({ line, column })) }
      : {}),
    classification:
      typeof error.extensions?.classification === 'string' ? error.extensions.classification : classification,
    ...(typeof limit === 'string' ? { limit } : {}),
  };
}

export interface GraphQLValidatorDependencies {
  executor: Pick<Executor, 'parse' | 'validate'>;
  schema: GraphQLSchema;
  limits: OperationLimits;
  access: OperationAccess;
  /** Whether executeGraphQL runs mutations (MCP_SCHEMA_TOOLS=write). */
  writes: boolean;
}

export function createGraphQLValidator(deps: GraphQLValidatorDependencies) {
  const { executor, schema, limits } = deps;
  return function validateGraphQL(
    source: string,
    variables: Record<string, unknown> | null | undefined,
    viewer: Identity | null,
  ): ValidationAnswer {
    let document: DocumentNode;
    try {
      document = executor.parse(source);
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return { valid: false, problems: [problemOf(error)], operations: [], limits };
    }
    const problems = executor.validate(schema, document).map((error) => problemOf(error));
    // Linear in the document, whatever it holds: measured even when it is refused.
    const operations = measureOperations(schema, document, limits).map((measure) => ({
      name: measure.definition.name?.value ?? null,
      type: measure.definition.operation,
      depth: measure.depth,
      cost: measure.cost,
    }));
    const operation = problems.length === 0 ? getOperationAST(document) : undefined;
    if (operation) {
      const refusal = operationRefusal(operation.operation, deps.writes);
      if (refusal) problems.push({ message: refusal.message, classification: refusal.classification });
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, {
        maxErrors: 20,
      });
      for (const error of coerced.errors ?? []) problems.push(problemOf(error));
      const denied = deps.access.refusalFor(document, undefined, viewer);
      if (denied) problems.push(problemOf(denied));
    }
    return { valid: problems.length === 0, problems, operations, limits };
  };
}
