/**
 * What the log says about requests: probes that succeed are debug lines (an info log is not flooded by
 * health checks), everything else an info access line; and an MCP tool call is one line, in both MCP modes: the access
 * line of the HTTP request that brought it carries the call's audit fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { captureLogs } from '../helpers/log-capture.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const DEBUG = 20;
const INFO = 30;

describe.each(dialects)('request log lines (%s)', (dialect) => {
  for (const mode of ['sessions', 'stateless'] as const) {
    describe(`MCP_MODE=${mode}`, () => {
      const logs = captureLogs('debug');
      let server: TestServer;
      beforeAll(async () => {
        server = await startTestServer(dialect, { logger: logs.logger, env: { MCP_MODE: mode } });
      });
      afterAll(() => server.stop());

      it('successful /healthz, /readyz and /metrics requests log at debug, other requests at info', async () => {
        for (const probe of ['/healthz', '/readyz', '/metrics']) {
          const response = await fetch(`${server.url}${probe}`, {
            headers: { 'x-request-id': `probe${probe.replace('/', '-')}` },
          });
          expect(response.status).toBe(200);
        }
        await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': 'query-1' },
          body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
        });
        const access = (id: string) => logs.lines().find((l) => l.msg === 'request' && l.requestId === id);
        await expect.poll(() => access('query-1')).toBeDefined();
        for (const probe of ['/healthz', '/readyz', '/metrics']) {
          expect(access(`probe${probe.replace('/', '-')}`), probe).toMatchObject({
            level: DEBUG,
            path: probe,
            status: 200,
          });
        }
        expect(access('query-1')).toMatchObject({ level: INFO, path: '/graphql', status: 200 });
      });

      it('a tool call writes one line: its POST /mcp access line, carrying the tool, outcome and argument hash', async () => {
        const client = await connectClient(server.url);
        try {
          const result = await callTool(client, 'recommendMoviesForMood', { mood: 'COMEDY' });
          expect(result.isError).toBe(false);
        } finally {
          await client.close();
        }
        // The access line is written when the response has finished, which the client may see first.
        const toolLines = () => logs.lines().filter((l) => l.tool === 'recommendMoviesForMood');
        await expect.poll(() => toolLines().length).toBe(1);
        const lines = toolLines();
        expect(lines[0]).toMatchObject({
          level: INFO,
          msg: 'request',
          method: 'POST',
          path: '/mcp',
          status: 200,
          requestId: expect.any(String),
          audit: 'tool_call',
          outcome: 'OK',
          argsHash: expect.stringMatching(/^[0-9a-f]{16}$/),
          mcpRequestId: expect.any(String),
          latencyMs: expect.any(Number),
          ms: expect.any(Number),
        });
        const sameRequest = logs.lines().filter((l) => l.requestId === lines[0]!.requestId);
        expect(sameRequest, 'no other line for that request').toHaveLength(1);
      });
    });
  }
});
