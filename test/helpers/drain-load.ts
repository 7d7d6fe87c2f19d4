/**
 * What the drain tests load a server with and how they judge its answers: loops on /graphql and MCP
 * clients until the drain refuses them, requests held with their headers accepted before the drain, and
 * the full answers those must get.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { MCP_HEADERS, callTool, openSession } from './mcp.js';
import { holdRequest, type RawResponse } from './raw-http.js';

const TITLE = 'The Shawshank Redemption';
export const QUERY = JSON.stringify({ query: '{ movie(id: "1") { title } }' });
/** A tools/call request; ids must differ between requests in flight on one session. */
export const call = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'getMovie', arguments: { id: '1' } },
  });

export interface LoadReport {
  ok: number;
  refused: number;
  failures: string[];
  stopped: Promise<void>;
}

/** Checks a drain refusal: 503, Retry-After, JSON, classified UNAVAILABLE. */
export function isDrainRefusal(status: number, retryAfter: string | null | undefined, body: string): boolean {
  return status === 503 && retryAfter === '5' && /"classification":"UNAVAILABLE"/.test(body);
}

/**
 * Runs `connections` loops against /graphql and as many MCP clients calling getMovie, each until it is
 * refused by the drain. Anything but a correct answer or a proper refusal is a failure.
 */
export function startLoad(url: string, clients: Client[], connections: number): LoadReport {
  const report: LoadReport = { ok: 0, refused: 0, failures: [], stopped: Promise.resolve() };
  const graphqlLoop = async () => {
    for (;;) {
      try {
        const response = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: QUERY,
        });
        const body = await response.text();
        if (response.status === 200 && body === `{"data":{"movie":{"title":"${TITLE}"}}}`) report.ok += 1;
        else if (isDrainRefusal(response.status, response.headers.get('retry-after'), body)) {
          report.refused += 1;
          return;
        } else report.failures.push(`graphql ${response.status} ${body.slice(0, 200)}`);
      } catch (error) {
        report.failures.push(`graphql ${String(error)}`);
        return;
      }
    }
  };
  const mcpLoop = async (client: Client) => {
    for (;;) {
      try {
        const result = await callTool<{ title: string }>(client, 'getMovie', { id: '1' });
        if (!result.isError && result.structuredContent.data.title === TITLE) report.ok += 1;
        else report.failures.push(`mcp ${JSON.stringify(result).slice(0, 200)}`);
      } catch (error) {
        // The SDK client surfaces an HTTP error as a StreamableHTTPError: `code` is the status, the
        // message carries the body.
        const message = String(error);
        const status = (error as { code?: unknown }).code;
        if (status === 503 && /"classification":"UNAVAILABLE"/.test(message)) report.refused += 1;
        else report.failures.push(`mcp ${message.slice(0, 200)}`);
        return;
      }
    }
  };
  report.stopped = Promise.all([
    ...Array.from({ length: connections }, graphqlLoop),
    ...clients.map(mcpLoop),
  ]).then(() => undefined);
  return report;
}

export async function rawSession(url: string, token: string): Promise<Record<string, string>> {
  return {
    ...MCP_HEADERS,
    authorization: `Bearer ${token}`,
    'mcp-session-id': await openSession(url, { token }),
    'mcp-protocol-version': '2025-11-25',
  };
}

/** Holds `count` tool calls on a session and `count` GraphQL requests, all received by the server. */
export async function holdRequests(url: string, session: Record<string, string>, count: number) {
  const mcp = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      holdRequest(`${url}/mcp`, { headers: session, body: call(100 + i) }),
    ),
  );
  const graphql = await Promise.all(
    Array.from({ length: count }, () =>
      holdRequest(`${url}/graphql`, { headers: { 'content-type': 'application/json' }, body: QUERY }),
    ),
  );
  return { mcp, graphql };
}

export function expectFullAnswers(mcp: RawResponse[], graphql: RawResponse[]): void {
  for (const [i, response] of mcp.entries()) {
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/event-stream/);
    // The first event of a resumable call stream is the priming event, with empty data.
    const data = /^data: (.+)$/m.exec(response.body)?.[1];
    expect(JSON.parse(data!)).toMatchObject({
      id: 100 + i,
      result: { isError: false, structuredContent: { data: { title: TITLE } } },
    });
  }
  for (const response of graphql) {
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ data: { movie: { title: TITLE } } });
  }
}
