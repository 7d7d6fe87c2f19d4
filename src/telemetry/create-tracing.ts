/**
 * The OpenTelemetry SDK, loaded only when tracing is configured (start-tracing.ts): a tracer provider
 * batching spans to an OTLP/HTTP exporter, an AsyncLocalStorage context manager and the W3C trace-context
 * propagator, all owned by this server (nothing is registered globally but the SDK's diagnostics, which
 * go to our logger so an unreachable collector is visible).
 *
 * Spans are made by hand at our own hook points instead of by auto-instrumentation, which patches http,
 * express and pg for every request and still knows nothing of GraphQL operations or tool calls.
 */
import { DiagLogLevel, diag, type DiagLogger } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { packageInfo } from '../package-info.js';
import { traceExecute } from './trace-execute.js';
import { traceHttpRequests } from './trace-http-requests.js';
import { traceQueries } from './trace-queries.js';
import type { SpanKit } from './span-kit.js';
import { traceToolRunner } from './trace-tool-runner.js';
import type { Tracing } from './tracing.js';

/** OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: each signal's path is appended to it (OTLP exporter spec). */
function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

async function createExporter(config: TracingConfig): Promise<SpanExporter> {
  // Only the chosen exporter is loaded. Both also read the standard OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT,
  // _COMPRESSION and certificate variables themselves; the URL given here wins over the environment.
  const { OTLPTraceExporter } =
    config.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: tracesUrl(config.endpoint) });
}

function diagnosticsTo(logger: Logger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) =>
    logger.warn(
      { detail: args.map((arg) => (arg instanceof Error ? arg.message : arg)) },
      `tracing: ${message}`,
    );
  const quiet = () => undefined;
  return { error: warn, warn, info: quiet, debug: quiet, verbose: quiet };
}

export async function createTracing(config: TracingConfig, logger: Logger): Promise<Tracing> {
  const { version } = packageInfo();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    // Some attribute values come from the client (the path, an operation name, a JSON-RPC id): bounded.
    spanLimits: { attributeValueLengthLimit: 256 },
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: await createExporter(config),
        scheduledDelayMillis: config.scheduleDelayMs,
      }),
    ],
  });
  diag.setLogger(diagnosticsTo(logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const kit: SpanKit = {
    tracer: provider.getTracer('moviedb-mcp', version),
    contextManager,
    propagator: new W3CTraceContextPropagator(),
  };
  return {
    traceListener: traceHttpRequests(kit),
    traceExecute: (execute) => traceExecute(kit, execute),
    traceToolRunner: (runTool) => traceToolRunner(kit, runTool),
    observeQuery: traceQueries(kit),
    async shutdown() {
      await provider.shutdown();
      contextManager.disable();
      diag.disable();
    },
  };
}
