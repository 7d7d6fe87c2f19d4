/**
 * The abuse limits through the front door: each limit is configured small with a short window, hit,
 * answered as RATE_LIMITED (HTTP 429 with Retry-After on /graphql, a tool error on MCP), and recovered
 * once the window has passed.
 */
import { describe, expect, it } from 'vitest';
import { databaseUrl, startProxiedServer } from '../helpers/proxied-server.js';
import type { GraphQLResponse } from '../helpers/graphql-client.js';

const LOGIN = 'mutation ($input: LoginInput!) { login(input: $input) { token } }';

describe.skipIf(!databaseUrl)('login failures with the store behind a proxy', () => {
  it('a login that fails because the store is down is not counted as a failed login', async () => {
    const env = await startProxiedServer({
      RATE_LIMITS: 'on',
      LOGIN_FAILURES_PER_ACCOUNT: '2',
      LOGIN_FAILURES_PER_ADDRESS: '2',
      LOGIN_FAILURE_WINDOW_SECONDS: '600',
    });
    const { proxy, server } = env;
    try {
      proxy.down();
      for (let i = 0; i < 3; i += 1) {
        const answer = await server.graphql(LOGIN, { input: { username: 'user', password: 'user123' } });
        expect(answer.body.errors?.[0]?.extensions?.classification).toBe('UNAVAILABLE');
      }
      proxy.up();
      // The pool may need an attempt or two to reconnect; those are not counted either.
      let answer: GraphQLResponse<{ login: { token: string } }> | undefined;
      await expect
        .poll(
          async () => {
            answer = await server.graphql<{ login: { token: string } }>(LOGIN, {
              input: { username: 'user', password: 'user123' },
            });
            return answer.body.errors?.[0]?.extensions?.classification;
          },
          { timeout: 5000, interval: 250 },
        )
        .not.toBe('UNAVAILABLE');
      expect(answer?.status).toBe(200);
      expect(answer?.body.data?.login).toBeTruthy();
    } finally {
      await env.stop();
    }
  });
});
