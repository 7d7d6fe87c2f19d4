/**
 * Confirmation by elicitation across replicas (docs/mcp.md, Confirmation before destructive tools): with
 * 2025 sessions shared through Redis, the user's answer to elicitation/create, POSTed to whichever
 * replica, reaches the call waiting on the other. The single-server flows are in elicitation.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { elicitingClient, removeFromWatchlist, YES } from '../helpers/eliciting-client.js';
import { callTool, MCP_HEADERS } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';

const redis = await redisAvailable();
const RUN = runPrefix();
afterAll(() => redis && dropKeys(RUN));

describe.skipIf(!redis)('an answer that lands on another replica (sessions shared through Redis)', () => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('the call waiting on A acts on the yes POSTed to B; a second answer to the same question is dropped', async () => {
    const env: Env = { REDIS_URL, REDIS_KEY_PREFIX: `${RUN}-elicit` };
    const a = await startTestServer('sqlite', { env });
    stops.push(() => a.stop());
    // One database (the same SQLite folder), as replicas share one.
    const b = await startTestServer('sqlite', { env: { ...env, DATA_DIR: a.dataDir } });
    stops.push(() => b.stop());
    const { token, username } = await a.newUser();
    const answersTo: string[] = [];
    /** Answers (JSON-RPC responses) go to B, everything else to A. */
    const routed: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      const base = 'result' in body || 'error' in body ? b.url : a.url;
      if (base === b.url) answersTo.push(base);
      return fetch(`${base}/mcp`, init);
    };
    const { client, transport, questions } = await elicitingClient('http://replicas.invalid', token, routed);
    stops.push(() => client.close());
    const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId: '49' } });
    const pending = removeFromWatchlist(client, added.structuredContent.data.id);
    await expect.poll(() => questions.length, { timeout: 5000 }).toBe(1);
    questions[0]!.answer(YES);
    expect((await pending).structuredContent).toEqual({ data: true, errors: [] });
    expect(answersTo).toEqual([b.url]);
    const entries = () =>
      a.count('watchlist_items', `user_id = (select id from users where username = '${username}')`);
    expect(await entries()).toBe(0);
    // The same answer again, to B: no one waits for it any more; accepted and dropped.
    const again = await raw(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': transport.sessionId!,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: questions[0]!.id, result: YES }),
    });
    expect(again.status).toBe(202);
  });
});
