/**
 * The lean tools/call path (src/mcp/direct-tool-call.ts) answers byte for byte what the SDK answers:
 * two stateless servers, one with MCP_DIRECT_TOOL_CALLS=off (every request through the SDK), get the
 * same calls in both eras (success, tool error, unknown tool, bad arguments, anonymous write), and the
 * status, media type and body must be equal. So do two servers in sessions mode for a 2025 session's
 * call, answered as an SSE stream (src/http/session-tool-call.ts): the same header lines and the same
 * events, event ids aside. The lean path takes only requests the SDK would hand unchanged to our
 * handler; the rest (progress, tasks, transport refusals) stays with the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDirectToolCall, type CallHeaders } from '../../src/mcp/direct-tool-call.js';
import { MCP_HEADERS } from '../helpers/mcp.js';
import { ENVELOPE, MODERN, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const CALLS: Array<[string, string, Record<string, unknown>]> = [
  ['success', 'recommendMoviesForMood', { mood: 'HORROR' }],
  ['a tool error (NOT_FOUND)', 'getMovie', { id: '999' }],
  ['an unknown tool (-32602)', 'noSuchTool', {}],
  ['bad arguments', 'getMovie', { idx: '1' }],
  ['a write by an anonymous caller (UNAUTHORIZED)', 'setWatchStatus', { itemId: '1', status: 'WATCHED' }],
];

describe.each(dialects)('the lean tools/call path (%s)', (dialect) => {
  let direct: TestServer;
  let sdk: TestServer;
  let token: string;
  beforeAll(async () => {
    direct = await startTestServer(dialect, { env: { MCP_MODE: 'stateless' } });
    sdk = await startTestServer(dialect, { env: { MCP_MODE: 'stateless', MCP_DIRECT_TOOL_CALLS: 'off' } });
    token = await direct.login('user', 'user123');
  });
  afterAll(async () => {
    await direct.stop();
    await sdk.stop();
  });

  async function both(request: { headers: Record<string, string>; body: string }) {
    const [lean, reference] = await Promise.all(
      [direct, sdk].map((server) => raw(`${server.url}/mcp`, { method: 'POST', ...request })),
    );
    return { lean: lean!, reference: reference! };
  }

  for (const [what, name, args] of CALLS) {
    it(`answers ${what} as the SDK does, 2025 stateless`, async () => {
      const { lean, reference } = await both({
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'call-7',
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      expect(lean.status).toBe(reference.status);
      expect(lean.headers['content-type']).toBe(reference.headers['content-type']);
      expect(lean.body).toBe(reference.body);
    });

    it(`answers ${what} as the SDK does, 2026-07-28`, async () => {
      const { lean, reference } = await both(modernRequest(42, 'tools/call', { name, arguments: args }));
      expect(lean.status).toBe(reference.status);
      expect(lean.headers['content-type']).toBe(reference.headers['content-type']);
      expect(lean.body).toBe(reference.body);
      // The SDK streams its JSON answer; the lean path sends it with a length: proof of which answered.
      expect(reference.headers['transfer-encoding']).toBe('chunked');
      expect(lean.headers['content-length']).toBe(String(Buffer.byteLength(lean.body)));
    });
  }

  it('a signed-in per-viewer read answers the same on both paths', async () => {
    const sdkToken = await sdk.login('user', 'user123');
    const request = (bearer: string) =>
      modernRequest(
        3,
        'tools/call',
        { name: 'myWatchlist', arguments: {} },
        { authorization: `Bearer ${bearer}` },
      );
    const [lean, reference] = await Promise.all([
      raw(`${direct.url}/mcp`, { method: 'POST', ...request(token) }),
      raw(`${sdk.url}/mcp`, { method: 'POST', ...request(sdkToken) }),
    ]);
    expect(JSON.parse(lean.body)).toMatchObject({ result: { isError: false } });
    expect(lean.body).toBe(reference.body);
  });
});

describe.each(dialects)('the lean tools/call path of a 2025 session (%s)', (dialect) => {
  let direct: TestServer;
  let sdk: TestServer;
  let tokens: Map<TestServer, string>;
  beforeAll(async () => {
    direct = await startTestServer(dialect);
    sdk = await startTestServer(dialect, { env: { MCP_DIRECT_TOOL_CALLS: 'off' } });
    tokens = new Map([
      [direct, await direct.login('user', 'user123')],
      [sdk, await sdk.login('user', 'user123')],
    ]);
  });
  afterAll(async () => {
    await direct.stop();
    await sdk.stop();
  });

  /** Opens a session of `revision` on each server and sends it the same call. */
  async function both(revision: string, body: unknown) {
    return Promise.all(
      [direct, sdk].map(async (server) => {
        const token = tokens.get(server)!;
        const initialize = await raw(`${server.url}/mcp`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: revision,
              capabilities: {},
              clientInfo: { name: 'raw', version: '1' },
            },
          }),
        });
        return raw(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            ...MCP_HEADERS,
            authorization: `Bearer ${token}`,
            'mcp-session-id': initialize.headers['mcp-session-id'] as string,
            'mcp-protocol-version': revision,
          },
          body: JSON.stringify(body),
        });
      }),
    );
  }

  /** The header lines, but for the ones that differ per response anyway. */
  const headerLines = (rawHeaders: string[]) =>
    rawHeaders
      .map((value, i) => (i % 2 === 0 ? `${value}: ${rawHeaders[i + 1]}` : ''))
      .filter((line) => line !== '' && !/^(x-request-id|date):/i.test(line));
  const withoutIds = (body: string) => body.replace(/^id: [0-9a-f-]{36}_[\d-]+$/gm, 'id: <id>');

  for (const revision of ['2025-11-25', '2025-06-18']) {
    for (const [what, name, args] of CALLS) {
      it(`answers ${what} as the SDK does, in a ${revision} session`, async () => {
        const [lean, reference] = await both(revision, {
          jsonrpc: '2.0',
          id: 'call-7',
          method: 'tools/call',
          params: { name, arguments: args },
        });
        expect(lean!.status).toBe(200);
        expect(lean!.status).toBe(reference!.status);
        expect(headerLines(lean!.rawHeaders)).toEqual(headerLines(reference!.rawHeaders));
        expect(withoutIds(lean!.body)).toBe(withoutIds(reference!.body));
        // Each event carries an id (the priming event first, from 2025-11-25 on), as the SDK's do.
        const ids = lean!.body.match(/^id: .+$/gm) ?? [];
        expect(ids).toHaveLength(revision === '2025-11-25' ? 2 : 1);
      });
    }
  }

  it('a signed-in per-viewer read answers the same on both paths, in a session', async () => {
    const [lean, reference] = await both('2025-11-25', {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'myWatchlist', arguments: {} },
    });
    expect(lean!.body).toMatch(/"isError":false/);
    expect(withoutIds(lean!.body)).toBe(withoutIds(reference!.body));
  });
});

describe('which requests the lean path takes', () => {
  const legacyHeaders: CallHeaders = {
    accept: 'application/json, text/event-stream',
    contentType: 'application/json',
    protocolVersion: '2025-11-25',
  };
  const modernHeaders: CallHeaders = {
    protocolVersion: MODERN,
    mcpMethod: 'tools/call',
    mcpName: 'getMovie',
  };
  const call = (params: Record<string, unknown> = {}, id: unknown = 1) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'getMovie', arguments: { id: '1' }, ...params },
  });
  const modern = (params: Record<string, unknown> = {}, id: unknown = 1) =>
    call({ _meta: ENVELOPE, ...params }, id);

  it('plain calls of both eras', () => {
    expect(isDirectToolCall(call(), 'legacy', legacyHeaders)).toBe(true);
    expect(isDirectToolCall(call({}, 'a'), 'legacy', { ...legacyHeaders, protocolVersion: undefined })).toBe(
      true,
    );
    expect(isDirectToolCall(modern(), 'modern', modernHeaders)).toBe(true);
    expect(isDirectToolCall(modern(), 'modern', { ...modernHeaders, mcpName: ' getMovie\t' })).toBe(true);
  });

  it('not a call with a progressToken or a task, another method, or an id the SDK refuses', () => {
    expect(isDirectToolCall(call({ _meta: { progressToken: 1 } }), 'legacy', legacyHeaders)).toBe(false);
    expect(isDirectToolCall(call({ task: {} }), 'legacy', legacyHeaders)).toBe(false);
    expect(isDirectToolCall({ ...call(), method: 'tools/list' }, 'legacy', legacyHeaders)).toBe(false);
    expect(isDirectToolCall(call({}, 1.5), 'legacy', legacyHeaders)).toBe(false);
    expect(isDirectToolCall(call({}, null), 'legacy', legacyHeaders)).toBe(false);
    expect(isDirectToolCall({ ...call(), jsonrpc: '1.0' }, 'legacy', legacyHeaders)).toBe(false);
    expect(
      isDirectToolCall(modern({ _meta: { ...ENVELOPE, progressToken: 'p' } }), 'modern', modernHeaders),
    ).toBe(false);
  });

  it('not a 2025 call the transport would refuse (Accept, Content-Type, revision)', () => {
    expect(isDirectToolCall(call(), 'legacy', { ...legacyHeaders, accept: 'application/json' })).toBe(false);
    expect(isDirectToolCall(call(), 'legacy', { ...legacyHeaders, contentType: 'text/plain' })).toBe(false);
    expect(isDirectToolCall(call(), 'legacy', { ...legacyHeaders, protocolVersion: '2024-11-05' })).toBe(
      false,
    );
  });

  it('not a 2026 call whose headers are missing, disagree with the body or are encoded', () => {
    for (const header of ['protocolVersion', 'mcpMethod', 'mcpName'] as const) {
      expect(isDirectToolCall(modern(), 'modern', { ...modernHeaders, [header]: undefined })).toBe(false);
    }
    expect(isDirectToolCall(modern(), 'modern', { ...modernHeaders, mcpName: 'myWatchlist' })).toBe(false);
    expect(isDirectToolCall(modern(), 'modern', { ...modernHeaders, mcpMethod: 'tools/list' })).toBe(false);
    expect(
      isDirectToolCall(modern(), 'modern', { ...modernHeaders, mcpName: '=?base64?Z2V0TW92aWU=?=' }),
    ).toBe(false);
    const badEnvelope = { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': 5 };
    expect(isDirectToolCall(modern({ _meta: badEnvelope }), 'modern', modernHeaders)).toBe(false);
  });
});
