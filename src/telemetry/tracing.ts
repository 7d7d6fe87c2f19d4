/**
 * What the rest of the server sees of tracing: a few hooks, present only when tracing is on. This file
 * holds types alone, so importing it loads nothing of OpenTelemetry.
 */
import type { LogEvent } from 'kysely';
import type { Executor } from '../graphql/executor.js';
import type { ToolRunner } from '../mcp/tool-runner.js';
import type { Dialect } from '../store/database.js';
import type { TraceListener } from './trace-http-requests.js';

export type Execute = Executor['execute'];

export interface Tracing {
  /** Wraps the request listener: a server span per request, active for everything the request runs. */
  traceListener: TraceListener;
  /** Wraps the executor's execute: a span per GraphQL operation, active while it runs. */
  traceExecute(execute: Execute): Execute;
  /** Wraps the tool runner: a span per MCP tool call, active while it runs. */
  traceToolRunner(runTool: ToolRunner): ToolRunner;
  /** Kysely's query log: a span per SQL statement run inside a traced request. */
  observeQuery(event: LogEvent, dialect: Dialect): void;
  /** Sends the spans still queued and stops. */
  shutdown(): Promise<void>;
}
