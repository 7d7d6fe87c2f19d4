/**
 * A real OTLP/HTTP receiver on port 0: it accepts the exporter's POSTs to /v1/traces, keeps every raw
 * body (so a test can search the bytes for what must never be exported) and decodes OTLP/JSON spans.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './time.js';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  resource: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;

function attributesOf(list: OtlpAttributes): Record<string, string | number | boolean> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.doubleValue ??
        value.boolValue ??
        '',
    ]),
  );
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every request the exporter sent, as received. */
  requests: { path: string; contentType: string | undefined; body: Buffer }[];
  spans(): ReceivedSpan[];
  /** Resolves once `predicate` holds for the spans received so far; rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'] = [];
  const received: ReceivedSpan[] = [];
  const problems: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'], body });
      if (req.headers['content-type']?.startsWith('application/json')) {
        let payload: unknown;
        try {
          payload = JSON.parse(body.toString('utf8'));
        } catch (error) {
          problems.push(`a body that is not JSON: ${String(error)}`);
          res.writeHead(400).end();
          return;
        }
        const { resourceSpans } = payload as {
          resourceSpans?: {
            resource?: { attributes?: OtlpAttributes };
            scopeSpans?: {
              spans?: (Omit<ReceivedSpan, 'attributes' | 'status' | 'resource'> & {
                attributes?: OtlpAttributes;
                status?: { code?: number };
              })[];
            }[];
          }[];
        };
        for (const group of resourceSpans ?? []) {
          const resource = attributesOf(group.resource?.attributes);
          for (const scope of group.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              received.push({
                ...span,
                parentSpanId: span.parentSpanId ?? '',
                attributes: attributesOf(span.attributes),
                status: span.status?.code ?? 0,
                resource,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => [...received],
    async waitFor(predicate, timeoutMs = 10_000) {
      await waitFor(
        'spans',
        () => predicate(received),
        { timeoutMs },
        () =>
          `got: ${received.map((s) => s.name).join(', ')}` +
          (problems.length > 0 ? `; ${problems.join('; ')}` : ''),
      );
      return [...received];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
