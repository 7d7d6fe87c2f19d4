import { z } from 'zod';
import { int, section, setting } from './setting.js';

export const tracingSettings = section(
  'Traces (optional): without OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry is loaded',
  z.object({
    endpoint: setting('OTEL_EXPORTER_OTLP_ENDPOINT', z.url({ protocol: /^https?$/ }).optional(), {
      description: 'OTLP/HTTP collector base URL; spans go to `<it>/v1/traces`. Unset: no tracing at all.',
      example: 'http://127.0.0.1:4318',
      see: 'deployment.md#traces',
    }),
    protocol: setting(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      z
        .enum(['http/protobuf', 'http/json'], {
          message: 'must be http/protobuf or http/json (grpc is not supported)',
        })
        .default('http/protobuf'),
      'Wire format of the export: `http/protobuf` (the OTLP default) or `http/json` (gRPC is not supported).',
    ),
    serviceName: setting(
      'OTEL_SERVICE_NAME',
      z.string().min(1).default('moviedb-mcp'),
      '`service.name` of every span.',
    ),
    scheduleDelayMs: setting(
      'OTEL_BSP_SCHEDULE_DELAY',
      int(1, 600000, 5000),
      'Longest time, in ms, a finished span waits before it is sent (a full batch of 512, and shutdown, send at once).',
    ),
  }),
).transform(({ endpoint, ...rest }) => (endpoint ? { endpoint, ...rest } : undefined));
