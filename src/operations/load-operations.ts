/**
 * Loads the operation catalogue (docs/contract.md, MCP tools): every operations/*.graphql file holds one named
 * operation, which becomes one MCP tool. Each file is parsed and validated through the same executor as
 * /graphql, at start-up (where any problem stops the server with a list of file:line: message entries)
 * and on each hot reload (where a problem keeps the catalogue that runs; operation-catalogue.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLCompositeType,
  type OperationDefinitionNode,
  isObjectType,
} from 'graphql';
import type { Tool } from '@modelcontextprotocol/server';
import type { Executor } from '../graphql/executor.js';
import { fragmentsOf } from '../graphql/fragments-of.js';
import type { RoleName } from '../store/tables.js';
import { createArgumentValidatorCompiler, type ArgumentValidator } from './argument-validator.js';
import { deriveInputSchema } from './input-schema.js';
import { deriveOmitDefaultedNulls, type OmitDefaultedNulls } from './omit-defaulted-nulls.js';
import { loadPreview, PREVIEWS_DIR, type PreviewOperation } from './load-preview.js';
import { deriveOutputSchema } from './derive-output-schema.js';
import { deriveResultShape, withTruncationMarker, type ResultShape } from './result-shape.js';
import { RESERVED_ARGUMENTS, withToolArguments } from './tool-arguments.js';
import { deriveRequiredAccess } from './required-access.js';
import { compileTextRendering, type RenderText } from './text-rendering.js';
import { defaultToolSettings, loadToolSettings, type ToolSettings } from './tool-settings.js';

export interface CuratedOperation {
  /** The MCP tool name: the operation name with a lower-case first letter. */
  toolName: string;
  operationName: string;
  kind: 'query' | 'mutation';
  document: DocumentNode;
  /** The response key of the single root field; its value is the tool's `data`. */
  rootKey: string;
  settings: ToolSettings;
  /**
   * Checks tool arguments against the strict form of the input schema: everything GraphQL accepts,
   * unknown keys refused (the listed form says the same in fewer words).
   */
  validateArguments: ArgumentValidator;
  /** Leaves out a null given for a non-null argument or input field that has a default (run before validating). */
  omitDefaultedNulls: OmitDefaultedNulls;
  /** Scopes a caller's token needs, from the @auth rules of the fields the document reaches. */
  requiredScopes: readonly string[];
  /** Whether a call asks the user before acting (tools.json `confirm`; destructive tools by default). */
  confirm: boolean;
  /** What such a question shows (operations/previews/); absent: it names the arguments. */
  preview?: PreviewOperation;
  /** Where the answer can be cut to fit the response budget; absent: it is never cut. */
  resultShape?: ResultShape;
  /** The role a caller needs (USER: signed in); undefined when anonymous callers may call it. */
  requiredRole?: RoleName;
  /** The text block of a successful result, when tools.json opts the tool into one. */
  renderText?: RenderText;
  /** The tools/list entry, computed once. */
  tool: Tool;
}

export class OperationCatalogueError extends Error {
  constructor(readonly problems: string[]) {
    super(`The operation catalogue has problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'OperationCatalogueError';
  }
}

function toolNameOf(operationName: string): string {
  return operationName.charAt(0).toLowerCase() + operationName.slice(1);
}

/** "recommendMoviesForMood" → "Recommend Movies For Mood". */
function titleOf(operationName: string): string {
  return operationName.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

/** The comment lines above the operation, joined: the operation's own description. */
function leadingComment(source: string): string | undefined {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) lines.push(trimmed.replace(/^#\s?/, ''));
    else if (trimmed === '' && lines.length === 0) continue;
    else break;
  }
  const text = lines.join(' ').replace(/\s+/g, ' ').trim();
  return text || undefined;
}

function located(file: string, error: GraphQLError): string {
  const location = error.locations?.[0];
  return `${file}${location ? `:${location.line}:${location.column}` : ''}: ${error.message}`;
}

export function loadOperations(executor: Executor, dir: string): CuratedOperation[] {
  const { schema } = executor;
  const { settings, problems, locate } = loadToolSettings(dir);
  // Which tools ask for confirmation depends on tools.json: with it broken, a preview is not an orphan.
  const settingsLoaded = problems.length === 0;
  const compileValidator = createArgumentValidatorCompiler();
  const operations: CuratedOperation[] = [];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort();
  if (files.length === 0) problems.push(`${dir}: no .graphql operation files`);

  for (const file of files) {
    const source = readFileSync(path.join(dir, file), 'utf8');
    let document: DocumentNode;
    try {
      document = executor.parse(source);
    } catch (error) {
      problems.push(error instanceof GraphQLError ? located(file, error) : `${file}: ${String(error)}`);
      continue;
    }
    const definitions = document.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    const operation = definitions[0];
    if (definitions.length !== 1 || !operation) {
      const line = definitions[1]?.loc?.startToken.line;
      problems.push(
        `${file}${line ? `:${line}` : ''}: must hold exactly one operation, found ${definitions.length}`,
      );
      continue;
    }
    const at = `${file}:${operation.loc?.startToken.line ?? 1}`;
    const operationName = operation.name?.value;
    if (!operationName) {
      problems.push(`${at}: the operation must be named`);
      continue;
    }
    if (`${operationName}.graphql` !== file)
      problems.push(`${at}: the file must be named ${operationName}.graphql`);
    if (operation.operation === 'subscription') {
      problems.push(`${at}: subscriptions cannot be tools`);
      continue;
    }
    const validationErrors = executor.validate(schema, document);
    if (validationErrors.length > 0) {
      problems.push(...validationErrors.map((e) => located(file, e)));
      continue;
    }
    const rootFields = operation.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD);
    const rootField = rootFields[0];
    if (rootFields.length !== 1 || operation.selectionSet.selections.length !== 1 || !rootField) {
      problems.push(`${at}: must select exactly one root field (its value is the tool's data)`);
      continue;
    }
    const toolName = toolNameOf(operationName);
    const toolSettings = settings[toolName] ?? defaultToolSettings();
    const rootType = schema.getRootType(operation.operation) as GraphQLCompositeType;
    const fragments = fragmentsOf(document);
    const rootFieldDefinition = isObjectType(rootType)
      ? rootType.getFields()[rootField.name.value]
      : undefined;
    const readOnly = operation.operation === 'query';
    const annotations = {
      readOnlyHint: readOnly,
      ...(readOnly ? {} : { destructiveHint: false }),
      idempotentHint: readOnly,
      openWorldHint: false,
      ...toolSettings.annotations,
    };
    const reserved = (operation.variableDefinitions ?? [])
      .map((d) => d.variable.name.value)
      .filter((name) => RESERVED_ARGUMENTS.includes(name));
    if (reserved.length > 0) {
      problems.push(`${file}: $${reserved.join(', $')}: reserved for the tool's own arguments; rename it`);
      continue;
    }
    const confirm = (toolSettings.confirm ?? (annotations.destructiveHint ? 'always' : 'never')) === 'always';
    const preview = confirm ? loadPreview(executor, dir, operation) : { problems: [] };
    problems.push(...preview.problems);
    const resultShape = deriveResultShape(rootFieldDefinition, rootField, operation);
    const access = deriveRequiredAccess(schema, rootType, operation.selectionSet, fragments);
    const outputSchema = deriveOutputSchema(schema, rootType, rootField, fragments);
    let renderText: RenderText | undefined;
    if (toolSettings.text) {
      const data = outputSchema.properties!.data!;
      const compiled = compileTextRendering(
        toolSettings.text,
        data,
        `${locate([toolName, 'text'])}: ${toolName}.text`,
      );
      if ('problems' in compiled) problems.push(...compiled.problems);
      else renderText = compiled.render;
    }
    const toolArguments = { write: !readOnly, confirm, list: resultShape?.kind === 'list' };
    operations.push({
      toolName,
      operationName,
      kind: operation.operation,
      document,
      rootKey: rootField.alias?.value ?? rootField.name.value,
      settings: toolSettings,
      validateArguments: compileValidator(
        withToolArguments(deriveInputSchema(schema, operation, 'strict'), {
          ...toolArguments,
          form: 'strict',
        }),
      ),
      omitDefaultedNulls: deriveOmitDefaultedNulls(schema, operation),
      requiredScopes: access.scopes,
      ...(access.role ? { requiredRole: access.role } : {}),
      ...(renderText ? { renderText } : {}),
      confirm,
      ...(preview.preview ? { preview: preview.preview } : {}),
      ...(resultShape ? { resultShape } : {}),
      tool: {
        name: toolName,
        title: titleOf(operationName),
        description: leadingComment(source) ?? rootFieldDefinition?.description ?? titleOf(operationName),
        inputSchema: withToolArguments(deriveInputSchema(schema, operation, 'listed'), {
          ...toolArguments,
          form: 'listed',
        }) as Tool['inputSchema'],
        outputSchema: (resultShape
          ? withTruncationMarker(outputSchema)
          : outputSchema) as Tool['outputSchema'],
        annotations,
        ...(toolSettings.app ? { _meta: { ui: { resourceUri: toolSettings.app } } } : {}),
      },
    });
  }

  const asking = new Set(operations.filter((o) => o.confirm).map((o) => o.operationName));
  const previews = path.join(dir, PREVIEWS_DIR);
  for (const file of settingsLoaded && existsSync(previews)
    ? readdirSync(previews).filter((f) => f.endsWith('.graphql'))
    : []) {
    if (!asking.has(file.replace(/\.graphql$/, '')))
      problems.push(`${PREVIEWS_DIR}/${file}: no tool of that name asks for confirmation`);
  }
  const names = new Set(operations.map((o) => o.toolName));
  for (const name of Object.keys(settings)) {
    if (!names.has(name))
      problems.push(`${locate([name])}: settings for "${name}", which no operation file defines`);
  }
  if (problems.length > 0) throw new OperationCatalogueError(problems);
  return operations;
}
