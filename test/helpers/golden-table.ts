/**
 * Runs a golden table (test/http/golden/: /graphql's and /mcp's): each request gets exactly the answer the
 * table holds, and is begun exactly once: one access line per request, naming the x-request-id the
 * answer carries, with the answer's status and the request's path, and, when tracing is on, one server
 * span per request of the endpoint.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { Env } from '../../src/config.js';
import { captureLogs } from './log-capture.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { startTestServer, type TestDialect, type TestServer } from './server.js';

/** The server a table runs against, its log, its trace receiver (tracing on) and a user's token. */
export interface GoldenServer {
  server: TestServer;
  logs: ReturnType<typeof captureLogs>;
  receiver: OtlpReceiver | undefined;
  token: string;
}

/** Starts the table's server before the suite's tests (exporting its spans when `tracing`), stops it after. */
export function useGoldenServer(dialect: TestDialect, tracing: boolean, env: Env = {}): GoldenServer {
  const run = { logs: captureLogs('info'), receiver: undefined, token: '' } as unknown as GoldenServer;
  beforeAll(async () => {
    run.receiver = tracing ? await startOtlpReceiver() : undefined;
    run.server = await startTestServer(dialect, {
      logger: run.logs.logger,
      env: {
        ...env,
        ...(run.receiver
          ? {
              OTEL_EXPORTER_OTLP_ENDPOINT: run.receiver.url,
              OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
              OTEL_BSP_SCHEDULE_DELAY: '50',
            }
          : {}),
      },
    });
    run.token = await run.server.login('user', 'user123');
  });
  afterAll(async () => {
    await run.server?.stop();
    await run.receiver?.close();
  });
  return run;
}

const SERVER_SPAN = 2;
/** The server spans of the requests whose path `onPath` accepts. */
export const serverSpans =
  (onPath: (path: string) => boolean) =>
  (spans: ReceivedSpan[]): ReceivedSpan[] =>
    spans.filter((s) => s.kind === SERVER_SPAN && onPath(String(s.attributes['url.path'])));

export interface GoldenTable<
  Request extends { name: string; path: string },
  Answer extends { status: number },
> {
  cases: readonly Request[];
  /** The answer the table holds for a request. */
  expected(request: Request): Answer | undefined;
  /** Sends one request: its answer as the table records it, and the x-request-id it came with. */
  send(request: Request): Promise<{ answer: Answer; requestId: string }>;
  /** The server's captured log, at info or below. */
  logs: ReturnType<typeof captureLogs>;
  /** With tracing on: the endpoint's server spans, how many there were before the table, and which requests make one. */
  tracing?: {
    receiver: OtlpReceiver;
    serverSpans(spans: ReceivedSpan[]): ReceivedSpan[];
    before: number;
    traced(request: Request): boolean;
  };
}

export async function expectGoldenTable<
  Request extends { name: string; path: string },
  Answer extends { status: number },
>(table: GoldenTable<Request, Answer>): Promise<void> {
  const { cases, logs, tracing } = table;
  const access = (from: number) =>
    logs
      .lines()
      .filter((l) => l.msg === 'request')
      .slice(from);
  const before = access(0).length;
  const ids: string[] = [];
  for (const request of cases) {
    const { answer, requestId } = await table.send(request);
    expect(answer, request.name).toEqual(table.expected(request));
    ids.push(requestId);
  }
  await expect.poll(() => access(before).length).toBeGreaterThanOrEqual(cases.length);
  const lines = access(before);
  expect(lines).toHaveLength(cases.length);
  expect(lines.map((l) => l.requestId).sort()).toEqual([...ids].sort());
  expect(new Set(ids).size).toBe(ids.length);
  for (const [i, request] of cases.entries()) {
    const line = lines.find((l) => l.requestId === ids[i]);
    expect(line, request.name).toMatchObject({
      status: table.expected(request)!.status,
      path: request.path.split('?')[0],
    });
  }
  if (tracing) {
    const wanted = tracing.before + cases.filter((request) => tracing.traced(request)).length;
    const spans = await tracing.receiver.waitFor((all) => tracing.serverSpans(all).length >= wanted);
    expect(tracing.serverSpans(spans)).toHaveLength(wanted);
  }
}
