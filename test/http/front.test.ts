/**
 * The node:http front (src/http/front.ts) answers /mcp exactly as Express does. The same requests, valid
 * and malformed, go to a server with the front and to one without it (HTTP_FRONT=off), in both MCP modes;
 * status, headers (all but Date) and body must match, with the front serving the hot requests itself
 * and handing every refusal to Express. (/graphql is one handler: its table is graphql-golden.test.ts.)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVELOPE, MODERN } from '../helpers/mcp-modern.js';
import { callTool, openSession } from '../helpers/mcp.js';
import { holdRequest, raw, type RawResponse } from '../helpers/raw-http.js';
import { seed } from '../helpers/seed.js';
import {
  TEST_AUDIENCE,
  TEST_ISSUER,
  TEST_JWT_SECRET,
  dialects,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';

interface Sent {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Who should answer it on the server with the front (requests it does not begin are left out). */
  by?: 'front' | 'express';
}

const USER_ID = String(seed.users.find((u) => u.username === 'user')!.id);
const expiredToken = () =>
  new SignJWT({ role: 'USER' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(USER_ID)
    .setIssuer(TEST_ISSUER)
    .setAudience(TEST_AUDIENCE)
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));

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

function requests(mode: string, token: string, expired: string): Sent[] {
  const bearer = { authorization: `Bearer ${token}` };
  const big = JSON.stringify({ query: `{ movie(id: "1") { title } } # ${'x'.repeat(110_000)}` });
  const legacyBy = mode === 'stateless' ? 'front' : 'express';
  return [
    // /mcp, 2025
    {
      name: 'mcp 2025 tools/call',
      path: '/mcp',
      headers: { ...MCP_2025, ...bearer },
      body: getMovie('2025'),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 anonymous tools/call',
      path: '/mcp',
      headers: MCP_2025,
      body: getMovie('2025', 2),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 unknown tool',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('tools/call', { name: 'noSuchTool', arguments: {} }),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 tool error (bad argument)',
      path: '/mcp',
      headers: MCP_2025,
      body: getMovie('2025', 3, { id: 'not-an-id' }),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 tools/call with a progress token (the SDK)',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('tools/call', { name: 'getMovie', arguments: { id: '1' }, _meta: { progressToken: 7 } }),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 tools/call without Accept of SSE',
      path: '/mcp',
      headers: { ...MCP_2025, accept: 'application/json' },
      body: getMovie('2025'),
      by: legacyBy,
    },
    {
      name: 'mcp 2025 cancellation',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('notifications/cancelled', { requestId: 99 }, undefined),
      by: legacyBy,
    },
    // /mcp, 2026-07-28
    {
      name: 'mcp 2026 tools/call',
      path: '/mcp',
      headers: { ...mcp2026('tools/call', 'getMovie'), ...bearer },
      body: getMovie('2026'),
      by: 'front',
    },
    {
      name: 'mcp 2026 tools/call with a mismatched Mcp-Name',
      path: '/mcp',
      headers: mcp2026('tools/call', 'searchMovies'),
      body: getMovie('2026'),
      by: 'front',
    },
    {
      name: 'mcp 2026 tools/list',
      path: '/mcp',
      headers: mcp2026('tools/list'),
      body: rpc('tools/list', { _meta: ENVELOPE }),
      by: 'front',
    },
    // /mcp refusals
    {
      name: 'mcp wrong Host',
      path: '/mcp',
      headers: { ...MCP_2025, host: 'evil.example' },
      body: getMovie('2025'),
      by: 'express',
    },
    {
      name: 'mcp foreign Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'https://evil.example' },
      body: getMovie('2025'),
      by: 'express',
    },
    {
      name: 'mcp malformed Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'not a url' },
      body: getMovie('2025'),
      by: 'express',
    },
    {
      name: 'mcp loopback Origin',
      path: '/mcp',
      headers: { ...MCP_2025, origin: 'http://localhost:1234' },
      body: getMovie('2025'),
      by: legacyBy,
    },
    {
      name: 'mcp garbage token',
      path: '/mcp',
      headers: { ...MCP_2025, authorization: 'Bearer not-a-token' },
      body: getMovie('2025'),
      by: 'express',
    },
    {
      name: 'mcp expired token',
      path: '/mcp',
      headers: { ...MCP_2025, authorization: `Bearer ${expired}` },
      body: getMovie('2025'),
      by: 'express',
    },
    {
      name: 'mcp unsupported revision',
      path: '/mcp',
      headers: { ...MCP_2025, 'mcp-protocol-version': '1999-01-01' },
      body: getMovie('2025'),
      by: 'express',
    },
    { name: 'mcp oversized body', path: '/mcp', headers: MCP_2025, body: big },
    {
      name: 'mcp wrong content type',
      path: '/mcp',
      headers: { ...MCP_2025, 'content-type': 'text/plain' },
      body: getMovie('2025'),
    },
    {
      name: 'mcp malformed JSON',
      path: '/mcp',
      headers: MCP_2025,
      body: '{"jsonrpc": "2.0",',
      by: 'express',
    },
    { name: 'mcp batch', path: '/mcp', headers: MCP_2025, body: `[${getMovie('2025')}]`, by: 'express' },
    { name: 'mcp not an object', path: '/mcp', headers: MCP_2025, body: '42', by: 'express' },
    {
      name: 'mcp params nested too deep',
      path: '/mcp',
      headers: MCP_2025,
      body: getMovie('2025', 4, { id: JSON.parse('['.repeat(100) + ']'.repeat(100)) }),
      by: 'express',
    },
    {
      name: 'mcp initialize',
      path: '/mcp',
      headers: MCP_2025,
      body: rpc('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'front-test', version: '1' },
      }),
      by: legacyBy,
    },
    { name: 'mcp GET', path: '/mcp', method: 'GET', headers: { accept: 'text/event-stream' } },
    { name: 'mcp with a trailing slash', path: '/mcp/', headers: MCP_2025, body: getMovie('2025') },
    { name: 'unknown route', path: '/nowhere', headers: JSON_TYPE, body: QUERY },
  ];
}

/** The sessions each server opened, named in a request's Mcp-Session-Id header as MINE or MARA'S. */
interface Sessions {
  mine: string;
  maras: string;
}
const MINE = 'MINE';
const MARAS = "MARA'S";

/** 2025 session POSTs (session mode): a plain tools/call is the front's, anything else Express's. */
function sessionRequests(token: string): Sent[] {
  const onMine = { ...MCP_2025, authorization: `Bearer ${token}`, 'mcp-session-id': MINE };
  return [
    { name: 'session tools/call', path: '/mcp', headers: onMine, body: getMovie('2025', 11), by: 'front' },
    {
      name: 'session tools/call, tool error (bad argument)',
      path: '/mcp',
      headers: onMine,
      body: getMovie('2025', 12, { id: 'not-an-id' }),
      by: 'front',
    },
    {
      name: 'session tools/call on a 2025-06-18 session header',
      path: '/mcp',
      headers: { ...onMine, 'mcp-protocol-version': '2025-06-18' },
      body: getMovie('2025', 13),
      by: 'front',
    },
    {
      name: 'session tools/call, the revision from the session',
      path: '/mcp',
      headers: {
        ...JSON_TYPE,
        accept: MCP_2025.accept,
        authorization: onMine.authorization,
        'mcp-session-id': MINE,
      },
      body: getMovie('2025', 14),
      by: 'front',
    },
    {
      name: 'session tools/call on an unknown session',
      path: '/mcp',
      headers: { ...onMine, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
      body: getMovie('2025', 15),
      by: 'express',
    },
    {
      name: "session tools/call on another user's session",
      path: '/mcp',
      headers: { ...onMine, 'mcp-session-id': MARAS },
      body: getMovie('2025', 16),
      by: 'express',
    },
    {
      name: 'session tools/call without a token on a user’s session',
      path: '/mcp',
      headers: { ...MCP_2025, 'mcp-session-id': MINE },
      body: getMovie('2025', 17),
      by: 'express',
    },
    {
      name: 'session tools/call with a progress token (the SDK)',
      path: '/mcp',
      headers: onMine,
      body: rpc('tools/call', { name: 'getMovie', arguments: { id: '1' }, _meta: { progressToken: 7 } }, 18),
      by: 'express',
    },
    {
      name: 'session tools/call without Accept of SSE',
      path: '/mcp',
      headers: { ...onMine, accept: 'application/json' },
      body: getMovie('2025', 19),
      by: 'express',
    },
    {
      name: 'session tools/list',
      path: '/mcp',
      headers: onMine,
      body: rpc('tools/list', {}, 20),
      by: 'express',
    },
    {
      name: 'session notification',
      path: '/mcp',
      headers: onMine,
      body: rpc('notifications/initialized', {}, undefined),
      by: 'express',
    },
    {
      name: 'session cancellation',
      path: '/mcp',
      headers: onMine,
      body: rpc('notifications/cancelled', { requestId: 99 }, undefined),
      by: 'express',
    },
    {
      name: 'session JSON-RPC response',
      path: '/mcp',
      headers: onMine,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, result: { action: 'decline' } }),
      by: 'express',
    },
    {
      // Not a 2025 message to the SDK's classification: the 2026-07-28 handler answers it (the front's).
      name: 'session malformed JSON-RPC response',
      path: '/mcp',
      headers: onMine,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, result: 'yes' }),
      by: 'front',
    },
    {
      name: 'session 2026 tools/call with a session header',
      path: '/mcp',
      headers: { ...mcp2026('tools/call', 'getMovie'), 'mcp-session-id': MINE },
      body: getMovie('2026', 21),
      by: 'front',
    },
  ];
}

/** Sends one request (Content-Length set, so the body is one the front reads) and normalizes the answer. */
async function send(
  server: TestServer,
  request: Sent,
  sessions?: Sessions,
): Promise<Omit<RawResponse, 'rawHeaders'>> {
  const body = request.body ?? '';
  const sent = { ...request.headers };
  const named = sent['mcp-session-id'];
  if (sessions && named === MINE) sent['mcp-session-id'] = sessions.mine;
  if (sessions && named === MARAS) sent['mcp-session-id'] = sessions.maras;
  const response = await raw(`${server.url}${request.path}`, {
    method: request.method ?? 'POST',
    headers: {
      'x-request-id': 'front-test',
      ...(request.method === 'GET' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      ...sent,
    },
    body: request.method === 'GET' ? undefined : body,
  });
  // The two servers differ in port, date, session ids and SSE event ids only.
  const port = new RegExp(String(server.port), 'g');
  const headers = Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => name !== 'date')
      .map(([name, value]) => [
        name,
        name === 'mcp-session-id' ? 'SESSION' : String(value).replace(port, 'PORT'),
      ]),
  );
  return {
    status: response.status,
    headers,
    body: response.body.replace(port, 'PORT').replace(/^id: .*$/gm, 'id: EVENT'),
  };
}

describe.each(dialects)('the node:http front on %s', (dialect) => {
  describe.each(['stateless', 'sessions'])('in %s mode', (mode) => {
    let front: TestServer;
    let express: TestServer;
    const answered: [string, 'front' | 'express'][] = [];
    let token = '';
    let expired = '';

    beforeAll(async () => {
      [front, express] = await Promise.all([
        startTestServer(dialect, {
          env: { MCP_MODE: mode },
          onFrontAnswer: (path, by) => answered.push([path, by]),
        }),
        startTestServer(dialect, { env: { MCP_MODE: mode, HTTP_FRONT: 'off' } }),
      ]);
      token = await front.login('user', 'user123');
      expired = await expiredToken();
    });
    afterAll(async () => {
      await Promise.all([front?.stop(), express?.stop()]);
    });

    it('answers every request with the status, headers and body Express gives', async () => {
      const differences: string[] = [];
      for (const request of requests(mode, token, expired)) {
        answered.length = 0;
        const [viaFront, viaExpress] = [await send(front, request), await send(express, request)];
        const who = answered.map(([, by]) => by);
        if (JSON.stringify(viaFront) !== JSON.stringify(viaExpress))
          differences.push(
            `${request.name}:\n  front   ${JSON.stringify(viaFront)}\n  express ${JSON.stringify(viaExpress)}`,
          );
        expect(viaFront.status, request.name).toBeLessThan(500);
        expect(who, request.name).toEqual(request.by ? [request.by] : []);
      }
      expect(differences).toEqual([]);
    });

    it.runIf(mode === 'sessions')(
      "serves a 2025 session's plain tools/call, and hands the rest to Express as it is",
      async () => {
        const maraToken = await front.login('mara', 'password');
        const opened = await Promise.all(
          [front, express].map(async (server) => ({
            mine: await openSession(server.url, { token }),
            maras: await openSession(server.url, { token: maraToken }),
          })),
        );
        const differences: string[] = [];
        for (const request of sessionRequests(token)) {
          answered.length = 0;
          const viaFront = await send(front, request, opened[0]);
          const viaExpress = await send(express, request, opened[1]);
          if (JSON.stringify(viaFront) !== JSON.stringify(viaExpress))
            differences.push(
              `${request.name}:\n  front   ${JSON.stringify(viaFront)}\n  express ${JSON.stringify(viaExpress)}`,
            );
          expect(viaFront.status, request.name).toBeLessThan(500);
          expect(
            answered.map(([, by]) => by),
            request.name,
          ).toEqual([request.by]);
        }
        expect(differences).toEqual([]);
      },
    );

    it.runIf(mode === 'sessions')(
      'hands a call that asks by elicitation to Express with its session found and held, once',
      async () => {
        const { token: userToken } = await front.newUser();
        const client = new Client({ name: 'elicits', version: '1' }, { capabilities: { elicitation: {} } });
        client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' as const }));
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${front.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${userToken}` } },
          }),
        );
        try {
          answered.length = 0;
          const added = await callTool<{ id: string }>(client, 'addToWatchlist', {
            subject: { movieId: '49' },
          });
          expect(answered).toEqual([['/mcp', 'front']]);
          answered.length = 0;
          const removal = await callTool(client, 'removeFromWatchlist', {
            itemId: added.structuredContent.data.id,
          });
          // The call (Express, after the front found the session) and the client's answer to its question.
          expect(answered).toEqual([
            ['/mcp', 'express'],
            ['/mcp', 'express'],
          ]);
          expect(removal.structuredContent.errors?.[0]?.extensions).toMatchObject({
            confirmation: 'declined',
          });
          // The session was released: its next plain call is the front's again.
          answered.length = 0;
          expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBeFalsy();
          expect(answered).toEqual([['/mcp', 'front']]);
        } finally {
          await client.close();
        }
      },
    );

    it('while draining, refuses new requests as Express does', async () => {
      const [a, b] = await Promise.all([
        startTestServer(dialect, { env: { MCP_MODE: mode, SHUTDOWN_GRACE_MS: '5000' } }),
        startTestServer(dialect, { env: { MCP_MODE: mode, SHUTDOWN_GRACE_MS: '5000', HTTP_FRONT: 'off' } }),
      ]);
      const drained = await Promise.all(
        [a, b].map(async (server) => {
          // A request already received keeps the server draining while new ones arrive.
          const held = await holdRequest(`${server.url}/graphql`, { headers: JSON_TYPE, body: QUERY });
          const closing = server.stop();
          await new Promise((resolve) => setTimeout(resolve, 100));
          const refused = [
            await send(server, { name: 'graphql', path: '/graphql', headers: JSON_TYPE, body: QUERY }),
            await send(server, { name: 'mcp', path: '/mcp', headers: MCP_2025, body: getMovie('2025') }),
          ];
          const finished = await held.finish();
          await closing;
          return { refused, finished: { status: finished.status, body: finished.body } };
        }),
      );
      expect(drained[0]!.refused[0]!.status).toBe(503);
      expect(drained[0]!.refused[1]!.status).toBe(503);
      expect(drained[0]!.finished.status).toBe(200);
      expect(drained[0]).toEqual(drained[1]);
    });
  });
});
