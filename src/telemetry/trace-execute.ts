/**
 * A span per executed GraphQL operation (OpenTelemetry GraphQL semantic conventions): its type and
 * name, and the outcome class (OK or the first error's classification). Never the document, whose
 * literals can be argument values, nor variables or results.
 */
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import { operationOutcome } from '../graphql/operation-outcome.js';
import type { SpanKit } from './span-kit.js';
import type { Execute } from './tracing.js';

function end(span: Span, outcome: string): void {
  span.setAttribute('moviedb.outcome', outcome);
  if (outcome !== 'OK') {
    span.setAttribute('error.type', outcome);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

export function traceExecute({ tracer, contextManager }: SpanKit, execute: Execute): Execute {
  return async (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    const parent = contextManager.active();
    // The name stays out of the span name: on /graphql the client chooses it (semantic conventions).
    const span = tracer.startSpan(
      operation?.operation ?? 'GraphQL Operation',
      {
        kind: SpanKind.SERVER,
        attributes: {
          ...(operation ? { 'graphql.operation.type': operation.operation } : {}),
          ...(operation?.name ? { 'graphql.operation.name': operation.name.value } : {}),
        },
      },
      parent,
    );
    try {
      const result = await contextManager.with(trace.setSpan(parent, span), execute, undefined, args);
      end(span, operationOutcome(result));
      return result;
    } catch (error) {
      end(span, 'INTERNAL_ERROR');
      throw error;
    }
  };
}
