/**
 * What the log says about requests: probes that succeed are debug lines (an info log is not flooded by
 * health checks), everything else an info access line; and the audit line of an MCP tool call carries
 * the requestId of the HTTP request that brought it, in both MCP modes.
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

      it('the audit line of a tool call carries the requestId of its HTTP request', async () => {
        const client = await connectClient(server.url);
        try {
          const result = await callTool(client, 'recommendMoviesForMood', { mood: 'COMEDY' });
          expect(result.isError).toBe(false);
        } finally {
          await client.close();
        }
        const audit = logs
          .lines()
          .find((l) => l.audit === 'tool_call' && l.tool === 'recommendMoviesForMood');
        expect(audit).toBeDefined();
        expect(audit!.requestId).toEqual(expect.any(String));
        expect(audit!.mcpRequestId).toEqual(expect.any(String));
        const accessLine = logs
          .lines()
          .find((l) => l.msg === 'request' && l.path === '/mcp' && l.requestId === audit!.requestId);
        expect(accessLine, 'an access line for POST /mcp with the same requestId').toMatchObject({
          method: 'POST',
        });
      });
    });
  }
});
