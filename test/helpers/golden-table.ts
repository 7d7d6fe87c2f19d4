/**
 * Runs a golden table (test/http/golden/: /graphql's and /mcp's): each request gets exactly the answer the
 * table holds, and is begun exactly once: one access line per request, naming the x-request-id the
 * answer carries, with the answer's status and the request's path, and, when tracing is on, one server
 * span per request of the endpoint.
 */
import { expect } from 'vitest';
import type { captureLogs } from './log-capture.js';
import type { OtlpReceiver, ReceivedSpan } from './otlp-receiver.js';

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
