/**
 * The lean path's resumption, proven the same way on one server and across replicas: a plain call cut
 * after its priming event, resumed with Last-Event-ID elsewhere (or on the same server).
 */
import { expect } from 'vitest';
import { MCP_HEADERS } from './mcp.js';
import type { ProxiedServer } from './proxied-server.js';
import { raw } from './raw-http.js';
import { auditOf, postToSession, streamHeaders, toolCall } from './session-requests.js';
import { messagesIn, openSse, parseSse } from './sse.js';

/**
 * A plain tools/call (the lean path: no progressToken) on a session of `runOn`'s, held by a stalled
 * database until its stream is cut after the priming event, then resumed with Last-Event-ID on
 * `resumeOn`: the result must arrive there, and the call must have run once, to its end. Then a call
 * whose stream ended normally: nothing of it is kept, so a resume from its priming event is a 400.
 * Returns the priming event's id.
 */
export async function cutPlainCallAndResume(
  running: ProxiedServer,
  resumeOn: string,
  sessionId: string,
): Promise<string> {
  const runOn = running.server.url;
  running.proxy.stall();
  const stream = await openSse(`${runOn}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
    body: JSON.stringify(toolCall(11, 'getMovie', { id: '4' })),
  });
  expect(stream.status).toBe(200);
  const primingId = await stream.firstEventId;
  stream.cut();
  // The call still waits for the stalled database while the cut reaches its server and `resumeOn`
  // takes up the stream: its 200 comes once it follows the call, whose result must then arrive there.
  const resumed = await openSse(`${resumeOn}/mcp`, { headers: streamHeaders(sessionId, primingId) });
  expect(resumed.status).toBe(200);
  running.proxy.resume();
  expect(messagesIn(await resumed.ended)).toEqual([
    {
      jsonrpc: '2.0',
      id: 11,
      result: expect.objectContaining({
        isError: false,
        structuredContent: expect.objectContaining({ data: expect.objectContaining({ id: '4' }) }),
      }),
    },
  ]);
  expect(auditOf(running, 'getMovie').map((line) => line.outcome)).toEqual(['OK']);

  const whole = await postToSession(runOn, sessionId, toolCall(12, 'getMovie', { id: '5' }));
  expect(messagesIn(whole.body)).toMatchObject([{ id: 12, result: { isError: false } }]);
  const delivered = parseSse(whole.body)[0]!.id!;
  await expect
    .poll(async () => (await raw(`${resumeOn}/mcp`, { headers: streamHeaders(sessionId, delivered) })).status)
    .toBe(400);
  return primingId;
}
