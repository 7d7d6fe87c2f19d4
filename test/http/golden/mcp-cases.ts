/**
 * The /mcp golden table's requests: valid and malformed, in both MCP modes (2025-era and 2026-07-28
 * messages, every refusal of the guards: Host and Origin, revision, bearer, body, JSON-RPC), and in
 * session mode the POSTs on an open session (a plain call, the session refusals, notifications,
 * responses). `mcp-golden.json` holds what the one request path answers to each (status, headers but
 * Date, body; request ids, session ids, SSE event ids and the port normalised), and
 * `record-mcp-golden.ts` rewrites it.
 */
import { ENVELOPE, MODERN } from '../../helpers/mcp-modern.js';
import { sendGolden, type GoldenAnswer, type GoldenRequest } from './graphql-cases.js';

export type McpMode = 'stateless' | 'sessions';

/** A request; `session` names which open session its Mcp-Session-Id header carries. */
export interface McpGoldenRequest extends GoldenRequest {
  session?: 'mine' | 'maras';
}

/** The sessions a server opened for the session cases (mine as `user`, Mara's as `mara`). */
export interface OpenSessions {
  mine: string;
  maras: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_2025 = {
  ...JSON_TYPE,
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const mcp2026 = (method: string, name?: string) => ({
  ...JSON_TYPE,
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});
const rpc = (method: string, params: Record<string, unknown>, id: number | undefined = 1) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params });
const getMovie = (era: '2025' | '2026', id = 1, args: Record<string, unknown> = { id: '1' }) =>
  rpc(
    'tools/call',
    { name: 'getMovie', arguments: args, ...(era === '2026' ? { _meta: ENVELOPE } : {}) },
    id,
  );
const QUERY = JSON.stringify({ query: '{ movie(id: "1") { title genre } }' });

/** The cases every mode answers (no session open). */
export function mcpCases(token: string, expired: string): McpGoldenRequest[] {
  const bearer = { authorization: `Bearer ${token}` };
  const big = JSON.stringify({ query: `{ movie(id: "1") { title } } # ${'x'.repeat(110_000)}` });
  return [
    // 2025-era messages
    {
      name: 'mcp 2025 tools/call',
      path: '/mcp',
      headers: { ...MCP_2025, ...bearer },
      body: getMovie('2025'),
    },
    { name: 'mcp 2025 anonymous tools/call', path: '/mcp', headers: MCP_2025, body: getMovie('2025', 2) },
    {
      name: 'mcp 2025 unknown tool',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('tools/call', { name: 'noSuchTool', arguments: {} }),
    },
    {
      name: 'mcp 2025 tool error (bad argument)',
      path: '/mcp',
      headers: MCP_2025,
      body: getMovie('2025', 3, { id: 'not-an-id' }),
    },
    {
      name: 'mcp 2025 tools/call with a progress token (the SDK)',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('tools/call', { name: 'getMovie', arguments: { id: '1' }, _meta: { progressToken: 7 } }),
    },
    {
      name: 'mcp 2025 tools/call with a progress token, accepting only JSON',
      path: '/mcp',
      headers: { ...MCP_2025, accept: 'application/json' },
      body: rpc('tools/call', { name: 'getMovie', arguments: { id: '1' }, _meta: { progressToken: 7 } }),
    },
    {
      name: 'mcp 2025 tools/call without Accept of SSE',
      path: '/mcp',
      headers: { ...MCP_2025, accept: 'application/json' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp 2025 cancellation',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('notifications/cancelled', { requestId: 99 }, undefined),
    },
    // 2026-07-28 messages
    {
      name: 'mcp 2026 tools/call',
      path: '/mcp',
      headers: { ...mcp2026('tools/call', 'getMovie'), ...bearer },
      body: getMovie('2026'),
    },
    {
      name: 'mcp 2026 tools/call with a mismatched Mcp-Name',
      path: '/mcp',
      headers: mcp2026('tools/call', 'searchMovies'),
      body: getMovie('2026'),
    },
    {
      name: 'mcp 2026 tools/list',
      path: '/mcp',
      headers: mcp2026('tools/list'),
      body: rpc('tools/list', { _meta: ENVELOPE }),
    },
    // refusals, in the guards' order
    {
      name: 'mcp wrong Host',
      path: '/mcp',
      headers: { ...MCP_2025, host: 'evil.example' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp foreign Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'https://evil.example' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp malformed Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'not a url' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp loopback Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'http://localhost:1234' },
      body: getMovie('2025'),
    },
    { name: 'mcp PUT', path: '/mcp', method: 'PUT', headers: MCP_2025, body: getMovie('2025') },
    {
      name: 'mcp garbage token',
      path: '/mcp',
      headers: { ...MCP_2025, authorization: 'Bearer not-a-token' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp expired token',
      path: '/mcp',
      headers: { ...MCP_2025, authorization: `Bearer ${expired}` },
      body: getMovie('2025'),
    },
    {
      name: 'mcp unsupported revision',
      path: '/mcp',
      headers: { ...MCP_2025, 'mcp-protocol-version': '1999-01-01' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp unsupported revision on a GET',
      path: '/mcp',
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' },
    },
    { name: 'mcp oversized body', path: '/mcp', headers: MCP_2025, body: big },
    { name: 'mcp chunked body', path: '/mcp', headers: MCP_2025, body: getMovie('2025'), chunked: true },
    {
      name: 'mcp wrong content type',
      path: '/mcp',
      headers: { ...MCP_2025, 'content-type': 'text/plain' },
      body: getMovie('2025'),
    },
    { name: 'mcp malformed JSON', path: '/mcp', headers: MCP_2025, body: '{"jsonrpc": "2.0",' },
    { name: 'mcp empty body', path: '/mcp', headers: MCP_2025, body: '' },
    { name: 'mcp batch', path: '/mcp', headers: MCP_2025, body: `[${getMovie('2025')}]` },
    { name: 'mcp not an object', path: '/mcp', headers: MCP_2025, body: '42' },
    {
      name: 'mcp params nested too deep',
      path: '/mcp',
      headers: MCP_2025,
      body: getMovie('2025', 4, { id: JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown }),
    },
    {
      name: 'mcp initialize',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'golden', version: '1' },
      }),
    },
    { name: 'mcp GET', path: '/mcp', method: 'GET', headers: { accept: 'text/event-stream' } },
    { name: 'mcp DELETE without a session', path: '/mcp', method: 'DELETE', headers: MCP_2025 },
    { name: 'mcp with a trailing slash', path: '/mcp/', headers: MCP_2025, body: getMovie('2025') },
    { name: 'mcp with a query string', path: '/mcp?x=1', headers: MCP_2025, body: getMovie('2025', 5) },
    { name: 'unknown route', path: '/nowhere', headers: JSON_TYPE, body: QUERY },
  ];
}

/** Session mode's POSTs on an open session (mine, Mara's, or one that does not exist). */
export function mcpSessionCases(token: string): McpGoldenRequest[] {
  const onMine = { ...MCP_2025, authorization: `Bearer ${token}` };
  const mine = { path: '/mcp', headers: onMine, session: 'mine' as const };
  return [
    { ...mine, name: 'session tools/call', body: getMovie('2025', 11) },
    {
      ...mine,
      name: 'session tools/call, tool error (bad argument)',
      body: getMovie('2025', 12, { id: 'not-an-id' }),
    },
    {
      ...mine,
      name: 'session tools/call on a 2025-06-18 session header',
      headers: { ...onMine, 'mcp-protocol-version': '2025-06-18' },
      body: getMovie('2025', 13),
    },
    {
      ...mine,
      name: 'session tools/call, the revision from the session',
      headers: { ...JSON_TYPE, accept: MCP_2025.accept, authorization: onMine.authorization },
      body: getMovie('2025', 14),
    },
    {
      name: 'session tools/call on an unknown session',
      path: '/mcp',
      headers: { ...onMine, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
      body: getMovie('2025', 15),
    },
    {
      name: "session tools/call on another user's session",
      path: '/mcp',
      headers: onMine,
      session: 'maras',
      body: getMovie('2025', 16),
    },
    {
      ...mine,
      name: 'session tools/call without a token on a user’s session',
      headers: MCP_2025,
      body: getMovie('2025', 17),
    },
    {
      ...mine,
      name: 'session tools/call with a progress token (the SDK)',
      body: rpc('tools/call', { name: 'getMovie', arguments: { id: '1' }, _meta: { progressToken: 7 } }, 18),
    },
    {
      ...mine,
      name: 'session tools/call without Accept of SSE',
      headers: { ...onMine, accept: 'application/json' },
      body: getMovie('2025', 19),
    },
    { ...mine, name: 'session tools/list', body: rpc('tools/list', {}, 20) },
    { ...mine, name: 'session notification', body: rpc('notifications/initialized', {}, undefined) },
    {
      ...mine,
      name: 'session cancellation',
      body: rpc('notifications/cancelled', { requestId: 99 }, undefined),
    },
    {
      ...mine,
      name: 'session JSON-RPC response',
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, result: { action: 'decline' } }),
    },
    {
      ...mine,
      name: 'session malformed JSON-RPC response',
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, result: 'yes' }),
    },
    {
      ...mine,
      name: 'session 2026 tools/call with a session header',
      headers: mcp2026('tools/call', 'getMovie'),
      body: getMovie('2026', 21),
    },
    {
      ...mine,
      name: 'session GET without Accept of SSE',
      method: 'GET',
      headers: { authorization: onMine.authorization, accept: 'application/json' },
      body: undefined,
    },
  ];
}

/** Sends one case (its session named) and normalises what differs between runs and servers. */
export async function sendMcpGolden(
  baseUrl: string,
  request: McpGoldenRequest,
  sessions?: OpenSessions,
): Promise<{ answer: GoldenAnswer; requestId: string }> {
  const { session, ...sent } = request;
  const headers = { ...sent.headers };
  if (session && sessions) headers['mcp-session-id'] = sessions[session];
  const { answer, requestId } = await sendGolden(baseUrl, { ...sent, headers });
  const port = new URL(baseUrl).port;
  const normal = (text: string) => text.split(port).join('PORT');
  return {
    requestId,
    answer: {
      status: answer.status,
      headers: Object.fromEntries(
        Object.entries(answer.headers).map(([name, value]) => [
          name,
          name === 'mcp-session-id' ? 'SESSION' : normal(value),
        ]),
      ),
      body: normal(answer.body).replace(/^id: .*$/gm, 'id: EVENT'),
    },
  };
}

/** The table's key of a case: its mode and name. */
export const goldenKey = (mode: McpMode, name: string): string => `${mode}: ${name}`;

/** Opens the session cases' two sessions with a raw initialize each. */
export async function openSessions(baseUrl: string, token: string, maraToken: string): Promise<OpenSessions> {
  const open = async (bearer: string) => {
    const initialize = rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'golden', version: '1' },
    });
    const { answer, sessionId } = await sendGolden(baseUrl, {
      name: 'initialize',
      path: '/mcp',
      headers: { ...MCP_2025, authorization: `Bearer ${bearer}` },
      body: initialize,
    }).then(({ answer }) => ({ answer, sessionId: answer.headers['mcp-session-id'] }));
    if (answer.status !== 200 || !sessionId) throw new Error(`initialize answered ${answer.status}`);
    return sessionId;
  };
  return { mine: await open(token), maras: await open(maraToken) };
}
