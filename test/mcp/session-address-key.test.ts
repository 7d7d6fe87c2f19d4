/**
 * Anonymous sessions count against the same address key as the rate limits: an IPv6 /64 is one client,
 * an IPv4-mapped address is its IPv4 form. Through the front door the client addresses come from a
 * trusted proxy's X-Forwarded-For (TRUST_PROXY=loopback), on the memory store and on Redis.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { principalOf } from '../../src/shared-state/session-store.js';
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';
import { openStream, raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the principal of an anonymous session', () => {
  it('is one per IPv6 /64, whatever the interface identifier', () => {
    expect(principalOf(null, '2001:db8:1:2::1')).toBe(principalOf(null, '2001:db8:1:2:ffff:1:2:3'));
    expect(principalOf(null, '2001:db8:1:2::1')).not.toBe(principalOf(null, '2001:db8:1:3::1'));
  });

  it('is the IPv4 address for its IPv4-mapped form, and a signed-in subject whatever the address', () => {
    expect(principalOf(null, '::ffff:192.0.2.7')).toBe(principalOf(null, '192.0.2.7'));
    expect(principalOf(null, '192.0.2.7')).not.toBe(principalOf(null, '192.0.2.8'));
    expect(principalOf('ada', '2001:db8::1')).toBe('user:ada');
  });
});

const available = await redisAvailable();
const RUN = runPrefix();
afterAll(() => available && dropKeys(RUN));
const stores: [string, Env][] = [
  ['memory', {}],
  ...(available ? [['redis', { REDIS_URL, REDIS_KEY_PREFIX: `${RUN}-caps` }] as [string, Env]] : []),
];

function initializeFrom(server: TestServer, forwardedFor: string) {
  return raw(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'x-forwarded-for': forwardedFor },
    body: JSON.stringify(INITIALIZE),
  });
}

describe.each(stores)('session caps behind a trusted proxy (%s store)', (_store, env) => {
  let server: TestServer;
  afterAll(() => server?.stop());

  it('one IPv6 /64 holds no more sessions than one address may: with 3 busy, a 4th from another address of it is 429, while another /64 opens its own', async () => {
    server = await startTestServer('sqlite', {
      env: { ...env, TRUST_PROXY: 'loopback', MCP_MAX_SESSIONS_PER_ADDRESS: '3' },
    });
    if (env.REDIS_URL) {
      const redisState = async () =>
        ((await (await fetch(`${server.url}/readyz`)).json()) as { checks: { redis?: string } }).checks.redis;
      await expect.poll(redisState).toBe('ok');
    }
    const streams: { close(): void }[] = [];
    try {
      for (const forwardedFor of ['2001:db8:1:2::1', '2001:db8:1:2:a:b:c:d', '2001:db8:1:2:ffff::1']) {
        const opened = await initializeFrom(server, forwardedFor);
        expect(opened.status).toBe(200);
        // A listening stream keeps the session busy, so the cap cannot make room by evicting it.
        const stream = await openStream(`${server.url}/mcp`, {
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': opened.headers['mcp-session-id'] as string,
            'mcp-protocol-version': '2025-11-25',
            'x-forwarded-for': forwardedFor,
          },
        });
        expect(stream.status).toBe(200);
        streams.push(stream);
      }
      const fourth = await initializeFrom(server, '2001:db8:1:2::4');
      expect(fourth.status).toBe(429);
      expect(JSON.parse(fourth.body)).toMatchObject({ error: { data: { classification: 'RATE_LIMITED' } } });
      expect((await initializeFrom(server, '2001:db8:1:3::4')).status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
