/**
 * A span per MCP tool call (OpenTelemetry MCP semantic conventions): the JSON-RPC method and id, the
 * tool, the protocol revision, and the outcome class (OK, PARTIAL, CANCELLED or the error
 * classification). Never the arguments, the result or anything of the caller's identity.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ToolRunner } from '../mcp/tool-runner.js';
import { MCP_PROTOCOL_VERSION } from './trace-http-requests.js';
import type { SpanKit } from './span-kit.js';

export function traceToolRunner({ tracer, contextManager }: SpanKit, runTool: ToolRunner): ToolRunner {
  return async (call) => {
    const parent = contextManager.active();
    const version = parent.getValue(MCP_PROTOCOL_VERSION);
    const span = tracer.startSpan(
      `tools/call ${call.operation.toolName}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'jsonrpc.request.id': call.requestId,
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.operation.toolName,
          'network.transport': 'tcp',
          'network.protocol.name': 'http',
          ...(typeof version === 'string' ? { 'mcp.protocol.version': version } : {}),
        },
      },
      parent,
    );
    try {
      const outcome = await contextManager.with(trace.setSpan(parent, span), runTool, undefined, call);
      span.setAttribute('moviedb.outcome', outcome.outcome);
      // A tool result with isError is a failed call: `tool_error` per the MCP conventions.
      if ('isError' in outcome.result && outcome.result.isError) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return outcome;
    } finally {
      span.end();
    }
  };
}
