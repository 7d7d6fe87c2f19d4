/**
 * The request limit through the front door: requests that execute nothing (MCP methods such as
 * tools/list, ping, resources and prompts; GraphQL documents refused by the parser or validation) spend
 * request points at their weight, per user and per client address, and past the budget are refused as
 * RATE_LIMITED: HTTP 429 with Retry-After and a JSON-RPC error on /mcp, a tool error for tools/call, a
 * 429 with the classified GraphQL error on /graphql. On each database, with the counters in memory and
 * in Redis.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { METHOD_POINTS } from '../../src/limits/request-weights.js';
import { MCP_HEADERS, openSession } from '../helpers/mcp.js';
import { modernRequest } from '../helpers/mcp-modern.js';
import { raw, type RawResponse } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const RUN_PREFIX = runPrefix();
const redis = await redisAvailable();
const stores = [
  { store: 'memory', env: {} as Env },
  ...(redis ? [{ store: 'redis', env: { REDIS_URL } as Env }] : []),
];
const cases = dialects.flatMap((dialect) => stores.map((store) => ({ dialect, ...store })));

afterAll(async () => {
  if (redis) await dropKeys(`${RUN_PREFIX}-`);
});

/** The JSON-RPC message of an answer, sent as JSON or as the one message of an SSE stream. */
function messageOf(response: RawResponse): {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
} {
  const data = /^data: (.+)$/m.exec(response.body)?.[1];
  return JSON.parse(data ?? response.body) as ReturnType<typeof messageOf>;
}

/** The request limit's refusal on /mcp: 429, Retry-After, a JSON-RPC error classified RATE_LIMITED. */
function expectRefusal(response: RawResponse, id: unknown, who: string, points: number): void {
  expect(response.status, response.body).toBe(429);
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(JSON.parse(response.body)).toEqual({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: `Too Many Requests: Too many requests: ${who} may spend ${points} request points a minute; try again in ${retryAfter} s`,
      data: { classification: 'RATE_LIMITED', retryAfterSeconds: retryAfter },
    },
  });
}

describe.each(cases)('the request limit on $dialect, counters in $store', ({ dialect, env: storeEnv }) => {
  let server: TestServer | undefined;
  let tests = 0;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  async function start(env: Env): Promise<TestServer> {
    server = await startTestServer(dialect, {
      env: {
        RATE_LIMITS: 'on',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        ...storeEnv,
        REDIS_KEY_PREFIX: `${RUN_PREFIX}-${dialect}-${++tests}`,
        ...env,
      },
    });
    if (storeEnv.REDIS_URL) {
      // Until it has connected the limits count in process (by design): wait, so Redis's are under test.
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${server!.url}/readyz`)).json()) as { checks?: { redis?: string } }).checks
              ?.redis,
        )
        .toBe('ok');
    }
    return server;
  }

  const post = (headers: Record<string, string>, body: string) =>
    raw(`${server!.url}/mcp`, { method: 'POST', headers, body });

  it('a 2025 session flooding tools/list is refused RATE_LIMITED once its points are spent; tools/call as a tool error', async () => {
    await start({ RATE_LIMIT_ANON_REQUESTS: '30' });
    // initialize costs 5 points, each tools/list 3: eight lists fit in 30, the ninth does not.
    const session = {
      ...MCP_HEADERS,
      'mcp-session-id': await openSession(server!.url),
      'mcp-protocol-version': '2025-11-25',
    };
    const list = (id: number) => post(session, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }));
    for (let id = 1; id <= 8; id += 1) {
      const answer = await list(id);
      expect(answer.status, answer.body).toBe(200);
      expect(messageOf(answer).result?.tools).toEqual(expect.any(Array));
    }
    expectRefusal(await list(9), 9, 'this address', 30);
    // Every method draws on the same points: ping and prompts/list are refused alike.
    expectRefusal(
      await post(session, JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' })),
      'p',
      'this address',
      30,
    );
    expectRefusal(
      await post(session, JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'prompts/list' })),
      10,
      'this address',
      30,
    );
    // A tools/call keeps the documented shape of a rate-limited call: a RATE_LIMITED tool error.
    const call = await post(
      session,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 11,
        method: 'tools/call',
        params: { name: 'getMovie', arguments: { id: '1' } },
      }),
    );
    expect(call.status).toBe(200);
    const result = messageOf(call).result as {
      isError: boolean;
      structuredContent: {
        errors: Array<{ classification: string; extensions: { retryAfterSeconds: number } }>;
      };
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'RATE_LIMITED',
      extensions: { retryAfterSeconds: expect.any(Number) },
    });
  });

  it('2026-07-28 requests spend the points of their method, per address and per user apart', async () => {
    await start({ RATE_LIMIT_ANON_REQUESTS: '30', RATE_LIMIT_USER_REQUESTS: '9' });
    const perList = METHOD_POINTS['tools/list']!;
    const allowed = Math.floor(30 / perList);
    for (let id = 1; id <= allowed; id += 1) {
      const { headers, body } = modernRequest(id, 'tools/list');
      expect((await post(headers, body)).status).toBe(200);
    }
    const over = modernRequest(99, 'tools/list');
    expectRefusal(await post(over.headers, over.body), 99, 'this address', 30);
    const discover = modernRequest(100, 'server/discover');
    expectRefusal(await post(discover.headers, discover.body), 100, 'this address', 30);

    // A signed-in user counts on its own budget, whatever its address spent.
    const token = await server!.login('user', 'user123');
    const auth = { authorization: `Bearer ${token}` };
    for (let id = 1; id <= 3; id += 1) {
      const { headers, body } = modernRequest(id, 'resources/list', {}, auth);
      expect((await post(headers, body)).status).toBe(200);
    }
    const fourth = modernRequest(4, 'resources/list', {}, auth);
    expectRefusal(await post(fourth.headers, fourth.body), 4, 'this user', 9);
  });

  it('a flood of documents refused by validation or the parser gets HTTP 429 with Retry-After; valid ones still run', async () => {
    await start({ RATE_LIMIT_ANON_REQUESTS: '10' });
    const send = (query: string) =>
      fetch(`${server!.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query }),
      });
    // Nine small ones (1 point each) and a syntax error: the ten points are spent.
    for (let i = 0; i < 9; i += 1) {
      const answer = await send(`{ nope${i} }`);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toMatch(
        /Cannot query field "nope\d"/,
      );
    }
    expect((await send('{ movie(')).status).toBe(400);
    const refused = await send('{ nope }');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({
      errors: [
        {
          message: `Too many requests: this address may spend 10 request points a minute; try again in ${retryAfter} s`,
          extensions: { classification: 'RATE_LIMITED', retryAfterSeconds: retryAfter },
        },
      ],
    });
    // A valid operation executes something: the operation limit counts it, not this one.
    const valid = await send('{ movie(id: "1") { title } }');
    expect(valid.status).toBe(200);
    expect(await valid.json()).toEqual({ data: { movie: { title: 'The Shawshank Redemption' } } });
  });

  it('RATE_LIMITS=off lets every request through, however small the request limits', async () => {
    await start({ RATE_LIMITS: 'off', RATE_LIMIT_ANON_REQUESTS: '1' });
    for (let id = 1; id <= 20; id += 1) {
      const { headers, body } = modernRequest(id, 'tools/list');
      expect((await post(headers, body)).status).toBe(200);
      const answer = await fetch(`${server!.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ nope }' }),
      });
      expect(answer.status).toBe(200);
    }
  });
});
