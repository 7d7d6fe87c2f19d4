/**
 * Tracing is opt-in: without an OTLP endpoint this returns undefined and OpenTelemetry's SDK is never
 * imported, so every hook point costs one check of an undefined value and nothing per request.
 */
import type { TracingConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Tracing } from './tracing.js';

export async function startTracing(
  config: TracingConfig | undefined,
  logger: Logger,
): Promise<Tracing | undefined> {
  if (!config) return undefined;
  const { createTracing } = await import('./create-tracing.js');
  return createTracing(config, logger);
}
