/**
 * A tool over the schema itself (searchSchema, validateGraphQL, executeGraphQL; src/mcp/schema-tools.ts
 * builds them): an entry of the catalogue beside the curated operations, so it is listed per caller,
 * looked up, scope-challenged, rate-limited, audited and mapped by the same code as they are. Only what
 * it does with its arguments is its own: `run`, which executes anything through the one executor.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { CallContext } from '../graphql/context.js';
import type { RoleName } from '../store/tables.js';
import type { ArgumentValidator } from './argument-validator.js';
import type { CuratedOperation } from './load-operations.js';
import type { ToolSettings } from './tool-settings.js';

export interface SchemaTool {
  kind: 'schema';
  toolName: string;
  /** The scope that gates the tool itself; each field's own @auth rules apply besides. */
  requiredScopes: readonly string[];
  requiredRole: RoleName;
  /** Schema tools never ask first: a write's annotations say it is destructive, for the host to ask. */
  confirm: false;
  settings: ToolSettings;
  validateArguments: ArgumentValidator;
  tool: Tool;
  /** Answers a call whose arguments were validated, as the caller the context names. */
  run(args: Record<string, unknown>, context: CallContext): Promise<CallToolResult>;
}

/** What the catalogue holds: curated operations and, when MCP_SCHEMA_TOOLS is on, the schema tools. */
export type CatalogueTool = CuratedOperation | SchemaTool;

export function isSchemaTool(tool: CatalogueTool): tool is SchemaTool {
  return tool.kind === 'schema';
}
