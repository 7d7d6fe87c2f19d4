/**
 * Tracing is opt-in: without an OTLP endpoint this returns undefined and OpenTelemetry's SDK is never
 * imported, so every hook point costs one check of an undefined value and nothing per request. The SDK's
 * packages are optional dependencies (the Docker image leaves them out unless built with TRACING=true):
 * an endpoint set where they are missing is a configuration error, not a crash.
 */
import { ConfigError, type TracingConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Tracing } from './tracing.js';

function isMissingOpenTelemetry(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
    error.message.includes('@opentelemetry/')
  );
}

export async function startTracing(
  config: TracingConfig | undefined,
  logger: Logger,
): Promise<Tracing | undefined> {
  if (!config) return undefined;
  try {
    const { createTracing } = await import('./create-tracing.js');
    return await createTracing(config, logger);
  } catch (error) {
    if (!isMissingOpenTelemetry(error)) throw error;
    throw new ConfigError([
      'OTEL_EXPORTER_OTLP_ENDPOINT: tracing needs the optional OpenTelemetry packages, which are not installed' +
        ' (npm install --include=optional; the Docker image: build it with --build-arg TRACING=true)',
    ]);
  }
}
