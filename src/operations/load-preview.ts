/**
 * A tool that asks before acting shows what it would act on: `operations/previews/<Operation>.graphql`
 * holds a query reading it, run with the tool's own arguments (src/mcp/confirm-call.ts). It is checked
 * at boot like the operations: one named query selecting one root field, valid against the schema, its
 * variables a subset of the tool's with the same types. Without a file the question names the arguments.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GraphQLError, Kind, print, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Executor } from '../graphql/executor.js';

export interface PreviewOperation {
  document: DocumentNode;
  /** The response key of its root field: the preview shown. */
  rootKey: string;
  /** The tool arguments it reads. */
  variables: string[];
  /**
   * The root field's arguments that read a tool argument of another name (`watchlistItem(id: $itemId)`:
   * `id` → `itemId`), so an error the preview raises about its argument names the tool's.
   */
  toolArgumentOf: ReadonlyMap<string, string>;
}

export const PREVIEWS_DIR = 'previews';

export function loadPreview(
  executor: Executor,
  dir: string,
  tool: OperationDefinitionNode,
): { preview?: PreviewOperation; problems: string[] } {
  const name = tool.name?.value ?? '';
  const file = path.join(PREVIEWS_DIR, `${name}.graphql`);
  const full = path.join(dir, file);
  if (!existsSync(full)) return { problems: [] };
  const where = (error: GraphQLError) => {
    const location = error.locations?.[0];
    return `${file}${location ? `:${location.line}:${location.column}` : ''}: ${error.message}`;
  };
  let document: DocumentNode;
  try {
    document = executor.parse(readFileSync(full, 'utf8'));
  } catch (error) {
    return { problems: [error instanceof GraphQLError ? where(error) : `${file}: ${String(error)}`] };
  }
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operations[0];
  const root = operation?.selectionSet.selections[0];
  if (
    operations.length !== 1 ||
    operation?.operation !== 'query' ||
    operation.selectionSet.selections.length !== 1 ||
    root?.kind !== Kind.FIELD
  ) {
    return { problems: [`${file}: must hold one query selecting one root field`] };
  }
  const invalid = executor.validate(executor.schema, document);
  if (invalid.length > 0) return { problems: invalid.map(where) };
  const toolTypes = new Map(
    (tool.variableDefinitions ?? []).map((d) => [d.variable.name.value, print(d.type)]),
  );
  const variables = (operation.variableDefinitions ?? []).map((d) => d.variable.name.value);
  const problems = (operation.variableDefinitions ?? [])
    .filter((d) => toolTypes.get(d.variable.name.value) !== print(d.type))
    .map(
      (d) =>
        `${file}: $${d.variable.name.value}: ${print(d.type)} is not a variable of ${name} with the same type`,
    );
  if (problems.length > 0) return { problems };
  const toolArgumentOf = new Map<string, string>();
  for (const { name, value } of root.arguments ?? []) {
    if (value.kind === Kind.VARIABLE && value.name.value !== name.value)
      toolArgumentOf.set(name.value, value.name.value);
  }
  const rootKey = root.alias?.value ?? root.name.value;
  return { preview: { document, rootKey, variables, toolArgumentOf }, problems: [] };
}
