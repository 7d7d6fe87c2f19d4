import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.stop());

  it('counts HTTP requests, GraphQL operations and tool calls by outcome class, in Prometheus text', async () => {
    await server.graphql('{ movie(id: "1") { title } }');
    await server.graphql('{ movie(id: "999") { title } }');
    const client = await connectClient(server.url);
    await callTool(client, 'getMovie', { id: '1' });
    await callTool(client, 'getMovie', { id: '999' });
    await callTool(client, 'addToWatchlist', { subject: { movieId: '1' } });
    await client.close();
    await fetch(`${server.url}/no/such/route/${Math.random()}`);

    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const count = (metric: string, labels: string) =>
      Number(new RegExp(`^${metric}_count\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect(count('moviedb_graphql_operation_duration_seconds', 'type="query",outcome="OK"')).toBe(1);
    expect(count('moviedb_graphql_operation_duration_seconds', 'type="query",outcome="NOT_FOUND"')).toBe(1);
    expect(count('moviedb_tool_call_duration_seconds', 'tool="getMovie",outcome="OK"')).toBe(1);
    expect(count('moviedb_tool_call_duration_seconds', 'tool="getMovie",outcome="NOT_FOUND"')).toBe(1);
    expect(count('moviedb_tool_call_duration_seconds', 'tool="addToWatchlist",outcome="UNAUTHORIZED"')).toBe(
      1,
    );
    expect(
      count('moviedb_http_request_duration_seconds', 'method="POST",route="/graphql",status="2xx"'),
    ).toBeGreaterThanOrEqual(2);
    // Unknown paths share one label value, so a scanner cannot blow up the series count.
    expect(count('moviedb_http_request_duration_seconds', 'method="GET",route="other",status="4xx"')).toBe(1);
    expect(text).not.toMatch(/no\/such\/route/);
  });
});
