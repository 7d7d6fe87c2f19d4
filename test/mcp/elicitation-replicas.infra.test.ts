/**
 * Confirmation by elicitation in 2025 sessions (docs/mcp.md, Confirmation before destructive tools): a v1 SDK client that declares
 * elicitation is asked with elicitation/create on the call's own stream, and its user's answer, POSTed
 * on the session, decides, whichever server instance or replica receives it. Also: no answer within the
 * bound (shortened here) settles the call as unconfirmed, a cancelled call or a deleted session settles
 * it, concurrent questions in one session get their own answers, a later answer acts on nothing, and a
 * client that answers the question with an error gets the two-step token instead of a dead end.
 * The flows of the other client kinds are in confirmation.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { callTool, MCP_HEADERS, type Envelope } from '../helpers/mcp.js';
import { raw } from '../helpers/raw-http.js';
import { dropKeys, REDIS_URL, redisAvailable, runPrefix } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';

/** The bound a question waits for its answer, shortened for the test. */

type Question = {
  /** The JSON-RPC id of the elicitation/create request. */
  id: string | number;
  message: string;
  signal: AbortSignal;
  answer(result: ElicitResult): void;
};

/**
 * A v1 client declaring elicitation whose questions the test answers (or not) through `questions`;
 * `fetch` lets a test send each request where it wants.
 */
async function elicitingClient(baseUrl: string, token: string, fetchVia?: typeof fetch) {
  const questions: Question[] = [];
  const client = new Client({ name: 'elicits', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(
    ElicitRequestSchema,
    (request, extra) =>
      new Promise<ElicitResult>((answer) => {
        questions.push({
          id: extra.requestId,
          message: request.params.message,
          signal: extra.signal,
          answer,
        });
      }),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(fetchVia ? { fetch: fetchVia } : {}),
  });
  await client.connect(transport);
  return { client, transport, questions };
}

const YES: ElicitResult = { action: 'accept', content: { confirm: true } };
const remove = (client: Client, itemId: string, options?: { signal?: AbortSignal }) =>
  client.callTool(
    { name: 'removeFromWatchlist', arguments: { itemId } },
    undefined,
    options,
  ) as unknown as Promise<{
    isError?: boolean;
    content: { text: string }[];
    structuredContent: Envelope;
  }>;

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
    const pending = remove(client, added.structuredContent.data.id);
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
