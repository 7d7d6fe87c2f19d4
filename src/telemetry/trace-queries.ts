/**
 * A span per SQL statement (OpenTelemetry database semantic conventions), made from kysely's query log
 * after the statement ran, so it costs nothing while tracing is off: the database system, the operation
 * verb and the table, read from the query's syntax tree. Never the SQL text or a parameter value.
 * Statements run outside a traced request (migrations, circuit probes) make no span of their own.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { LogEvent, OperationNode, RootOperationNode } from 'kysely';
import type { Dialect } from '../store/database.js';
import type { SpanKit } from './span-kit.js';

const SYSTEM: Record<Dialect, string> = { sqlite: 'sqlite', postgres: 'postgresql' };

/** The table a FROM, INTO or UPDATE target names, when it is a plain (possibly aliased) table. */
function tableOf(node: OperationNode | undefined): string | undefined {
  if (node?.kind === 'AliasNode') return tableOf((node as OperationNode & { node: OperationNode }).node);
  if (node?.kind !== 'TableNode') return undefined;
  return (node as OperationNode & { table: { identifier: { name: string } } }).table.identifier.name;
}

function describe(node: RootOperationNode, sql: string): { operation: string; table?: string } {
  switch (node.kind) {
    case 'SelectQueryNode':
      return { operation: 'SELECT', table: tableOf(node.from?.froms[0]) };
    case 'InsertQueryNode':
      return { operation: 'INSERT', table: tableOf(node.into) };
    case 'UpdateQueryNode':
      return { operation: 'UPDATE', table: tableOf(node.table) };
    case 'DeleteQueryNode':
      return { operation: 'DELETE', table: tableOf(node.from.froms[0]) };
    default:
      // Raw statements (begin, commit, select 1): the leading keyword only.
      return { operation: /^\s*([A-Za-z]{1,20})/.exec(sql)?.[1]?.toUpperCase() ?? 'OTHER' };
  }
}

/** A low-cardinality class of a failed statement: the driver's code (SQLSTATE, SQLITE_*), else its type. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown';
}

export function traceQueries({ tracer, contextManager }: SpanKit) {
  return (event: LogEvent, dialect: Dialect): void => {
    const parent = contextManager.active();
    if (!trace.getSpan(parent)) return;
    const { operation, table } = describe(event.query.query, event.query.sql);
    const endTime = performance.now();
    const span = tracer.startSpan(
      table ? `${operation} ${table}` : operation,
      {
        kind: SpanKind.CLIENT,
        startTime: endTime - event.queryDurationMillis,
        attributes: {
          'db.system.name': SYSTEM[dialect],
          // The name before semantic conventions 1.33, which many backends still key on.
          'db.system': SYSTEM[dialect],
          'db.operation.name': operation,
          ...(table ? { 'db.collection.name': table } : {}),
        },
      },
      parent,
    );
    if (event.level === 'error') {
      span.setAttribute('error.type', errorType(event.error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(endTime);
  };
}
