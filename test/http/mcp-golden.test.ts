/**
 * The /mcp golden table: every request of mcp-cases.ts, in both MCP modes (and in session mode the POSTs
 * on an open session), must get the status, headers (all but Date) and body mcp-golden.json holds.
 * Every request is begun exactly once: one access line per request, naming the x-request-id the answer
 * carries, and one server span per request when tracing is on (a traced server runs the same path).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGoldenTable, serverSpans, useGoldenServer } from '../helpers/golden-table.js';
import { holdRequest } from '../helpers/raw-http.js';
import { dialects, startTestServer } from '../helpers/server.js';
import { expiredToken, type GoldenAnswer } from './golden/graphql-cases.js';
import {
  goldenKey,
  mcpCases,
  mcpSessionCases,
  openSessions,
  sendMcpGolden,
  type McpGoldenRequest,
  type McpMode,
} from './golden/mcp-cases.js';

const golden = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'golden/mcp-golden.json'), 'utf8'),
) as Record<string, GoldenAnswer>;

const mcpServerSpans = serverSpans((path) => path === '/mcp');

const runs: [McpMode, 'off' | 'on'][] = [
  ['stateless', 'off'],
  ['sessions', 'off'],
  ['stateless', 'on'],
  ['sessions', 'on'],
];

describe.each(dialects)('the /mcp golden table on %s', (dialect) => {
  describe.each(runs)('in %s mode, tracing %s', (mode, tracing) => {
    const run = useGoldenServer(dialect, tracing === 'on', { MCP_MODE: mode });

    it('answers every request as the table says, each begun once with the id it answers with', async () => {
      const { server, logs, receiver, token } = run;
      const sessions =
        mode === 'sessions'
          ? await openSessions(server.url, token, await server.login('mara', 'password'))
          : undefined;
      const cases: McpGoldenRequest[] = [
        ...mcpCases(token, await expiredToken()),
        ...(sessions ? mcpSessionCases(token) : []),
      ];
      const keys = cases.map((c) => goldenKey(mode, c.name));
      expect(keys.sort()).toEqual(
        Object.keys(golden)
          .filter((k) => k.startsWith(`${mode}: `))
          .sort(),
      );
      // The sessions' initializes before the table are /mcp spans too.
      const spansBefore = receiver
        ? mcpServerSpans(await receiver.waitFor((all) => mcpServerSpans(all).length >= (sessions ? 2 : 0)))
            .length
        : 0;
      await expectGoldenTable({
        cases,
        expected: (request) => golden[goldenKey(mode, request.name)],
        send: (request) => sendMcpGolden(server.url, request, sessions),
        logs,
        tracing: receiver && {
          receiver,
          serverSpans: mcpServerSpans,
          before: spansBefore,
          traced: (request) => request.path.split('?')[0] === '/mcp',
        },
      });
    });

    it.runIf(tracing === 'off')(
      'while draining, a new request is the 503 and one already received is answered',
      async () => {
        const draining = await startTestServer(dialect, {
          env: { MCP_MODE: mode, SHUTDOWN_GRACE_MS: '5000' },
        });
        const held = await holdRequest(`${draining.url}/graphql`, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
        });
        const closing = draining.stop();
        const request = mcpCases(run.token, '').find((c) => c.name === 'mcp 2025 anonymous tools/call')!;
        let refused: GoldenAnswer | undefined;
        await expect
          .poll(async () => (refused = (await sendMcpGolden(draining.url, request)).answer).status)
          .toBe(503);
        const body = JSON.stringify({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message:
              'Service Unavailable: The server is shutting down; retry the request (another instance will take it)',
            data: { classification: 'UNAVAILABLE', retryAfterSeconds: 5 },
          },
          id: null,
        });
        expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '5', connection: 'close' } });
        expect(JSON.parse(refused!.body)).toEqual(JSON.parse(body));
        expect((await held.finish()).status).toBe(200);
        await closing;
      },
    );
  });
});
