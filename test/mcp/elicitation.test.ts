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
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { elicitingClient, removeFromWatchlist, YES } from '../helpers/eliciting-client.js';
import { callTool, MCP_HEADERS, type Envelope } from '../helpers/mcp.js';
import { captureLogs } from '../helpers/log-capture.js';
import { raw } from '../helpers/raw-http.js';
import { messagesIn } from '../helpers/sse.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The bound a question waits for its answer, shortened for the test. */
const TIMEOUT_SECONDS = 2;

describe('a 2025 session whose client declares elicitation is asked by elicitation/create', () => {
  let server: TestServer;
  const closers: Array<() => Promise<void>> = [];
  const logs = captureLogs();
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      env: { MCP_ELICIT_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) },
      logger: logs.logger,
    });
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  afterAll(() => server.stop());

  /** A new user with Se7en (49) and, when asked, more movies on the watch list; its entry ids. */
  const userWith = async (...movieIds: string[]) => {
    const { token, username } = await server.newUser();
    const asker = await elicitingClient(server.url, token);
    closers.push(() => asker.client.close());
    const items: string[] = [];
    for (const movieId of movieIds.length > 0 ? movieIds : ['49']) {
      const added = await callTool<{ id: string }>(asker.client, 'addToWatchlist', { subject: { movieId } });
      items.push(added.structuredContent.data.id);
    }
    const entries = () =>
      server.count('watchlist_items', `user_id = (select id from users where username = '${username}')`);
    return { ...asker, token, items, entries };
  };

  /**
   * POSTs an answer to question `id` on a session as a raw JSON-RPC response: the SDK client sends
   * nothing for a question the server has withdrawn, so a late answer must be sent by hand. The
   * answer is handed to its waiter, if any, before the POST is answered.
   */
  const answerTo = (
    sessionId: string,
    token: string,
    id: unknown,
    answer: Record<string, unknown> = { result: YES },
  ) =>
    raw(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': sessionId,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, ...answer }),
    });

  it('accept with confirm=true: the question names the entry, then the entry is removed, in one call', async () => {
    const { client, questions, items, entries } = await userWith();
    const pending = removeFromWatchlist(client, items[0]!);
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]!.message).toBe('Remove From Watchlist: "Se7en" (1995). Go ahead?');
    questions[0]!.answer(YES);
    expect((await pending).structuredContent).toEqual({ data: true, errors: [] });
    expect(await entries()).toBe(0);
  });

  it('decline, cancel, or accept with confirm=false: nothing removed, a FORBIDDEN result saying so', async () => {
    const { client, questions, items, entries } = await userWith();
    const answers: ElicitResult[] = [
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { confirm: false } },
    ];
    for (const [i, answer] of answers.entries()) {
      const pending = removeFromWatchlist(client, items[0]!);
      await expect.poll(() => questions.length).toBe(i + 1);
      questions[i]!.answer(answer);
      const result = await pending;
      expect(result.isError, answer.action).toBe(true);
      expect(result.structuredContent.errors[0], answer.action).toMatchObject({
        classification: 'FORBIDDEN',
        retryable: false,
        extensions: { confirmation: 'declined' },
        message:
          'The user did not confirm removeFromWatchlist: nothing was done. Call it again only if the user asks.',
      });
      // What a model that reads only the text sees (docs/errors.md, What a model reads).
      expect(result.content[0]!.text, answer.action).toBe(
        'FORBIDDEN (not retryable): The user did not confirm removeFromWatchlist: nothing was done. Call it again only if the user asks.',
      );
    }
    expect(await entries()).toBe(1);
  });

  it('a client that never answers: the call settles after the bound, unconfirmed, and the client is told to stop asking', async () => {
    const { client, transport, token, questions, items, entries } = await userWith();
    const started = Date.now();
    const result = await removeFromWatchlist(client, items[0]!);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000 - 50);
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'FORBIDDEN',
      extensions: { confirmation: 'unanswered' },
      message: expect.stringMatching(/did not answer .* in time: nothing was done/),
    });
    expect(questions).toHaveLength(1);
    await expect.poll(() => questions[0]!.signal.aborted).toBe(true);
    // Answered after all: too late, accepted and dropped; nothing happens.
    expect((await answerTo(transport.sessionId!, token, questions[0]!.id)).status).toBe(202);
    expect(await entries()).toBe(1);
  });

  it('two questions at once in one session, answered in reverse order, each decide their own entry', async () => {
    const { client, questions, items, entries } = await userWith('49', '9');
    const [se7en, other] = [removeFromWatchlist(client, items[0]!), removeFromWatchlist(client, items[1]!)];
    await expect.poll(() => questions.length).toBe(2);
    for (const question of [...questions].reverse())
      question.answer(question.message.includes('Se7en') ? YES : { action: 'decline' });
    expect((await se7en).structuredContent).toEqual({ data: true, errors: [] });
    expect((await other).structuredContent.errors[0]).toMatchObject({ classification: 'FORBIDDEN' });
    expect(await entries()).toBe(1);
    const left = await callTool<{ id: string }[]>(client, 'myWatchlist', {});
    expect(left.structuredContent.data.map((item) => item.id)).toEqual([items[1]]);
  });

  it('a call cancelled while its user is asked ends; a yes that comes after removes nothing', async () => {
    const { client, transport, token, questions, items, entries } = await userWith();
    const controller = new AbortController();
    const pending = removeFromWatchlist(client, items[0]!, { signal: controller.signal });
    await expect.poll(() => questions.length).toBe(1);
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    // The server has ended the call (its audit line says so) before the user answers.
    const outcomes = () =>
      logs
        .lines()
        .filter(
          (l) =>
            l.audit === 'tool_call' &&
            l.tool === 'removeFromWatchlist' &&
            l.sessionId === transport.sessionId,
        )
        .map((l) => l.outcome);
    await expect.poll(outcomes, { timeout: 5000 }).toEqual(['CANCELLED']);
    expect((await answerTo(transport.sessionId!, token, questions[0]!.id)).status).toBe(202);
    expect(await entries()).toBe(1);
  });

  it('a session deleted while its user is asked: the call settles unanswered and removes nothing', async () => {
    const { client, transport, token, questions, items, entries } = await userWith();
    const pending = removeFromWatchlist(client, items[0]!);
    await expect.poll(() => questions.length).toBe(1);
    const deleted = await raw(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': transport.sessionId!, authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(200);
    const result = await pending;
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'FORBIDDEN',
      extensions: { confirmation: 'unanswered' },
      message: expect.stringMatching(/^The session ended before the user answered/),
    });
    expect(await entries()).toBe(1);
  });

  it('a client that declares elicitation but answers the question with an error (as Mastra 0.x does) gets the two-step token in the same answer, and the token then removes the entry', async () => {
    const { token, username } = await server.newUser();
    let asked = 0;
    const client = new Client({ name: 'no-handler', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked += 1;
      throw new Error('No elicitation handler is registered');
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    closers.push(() => client.close());
    const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId: '49' } });
    const itemId = added.structuredContent.data.id;
    const first = await removeFromWatchlist(client, itemId);
    expect(asked).toBe(1);
    expect(first.isError).toBe(true);
    const error = first.structuredContent.errors[0]!;
    expect(error).toMatchObject({
      classification: 'BAD_REQUEST',
      extensions: {
        field: 'confirmationToken',
        elicitation: 'failed',
        target: { content: { title: 'Se7en' } },
      },
      message: expect.stringMatching(
        /^Nothing done yet: removeFromWatchlist asks the user first \(the client could not show the question\)\. It would act on "Se7en" \(1995\)/,
      ),
    });
    const confirmationToken = error.extensions!.confirmationToken as string;
    expect(confirmationToken).toEqual(expect.any(String));
    const entries = () =>
      server.count('watchlist_items', `user_id = (select id from users where username = '${username}')`);
    expect(await entries()).toBe(1);
    const second = await callTool(client, 'removeFromWatchlist', { itemId, confirmationToken });
    // With the token the call acts without asking again.
    expect(second.structuredContent).toEqual({ data: true, errors: [] });
    expect(asked).toBe(1);
    expect(await entries()).toBe(0);
  });

  it('a client that declares only URL elicitation (no form) gets the two-step token, and no question', async () => {
    const { token } = await server.newUser();
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${token}` };
    const post = (body: unknown, sessionId?: string) =>
      raw(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          ...headers,
          ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        body: JSON.stringify(body),
      });
    const opened = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { url: {} } },
        clientInfo: { name: 'url-only', version: '1' },
      },
    });
    const sessionId = opened.headers['mcp-session-id'] as string;
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, sessionId);
    const added = messagesIn((await call(2, 'addToWatchlist', { subject: { movieId: '49' } })).body)[0] as {
      result: { structuredContent: Envelope<{ id: string }> };
    };
    const asked = messagesIn(
      (await call(3, 'removeFromWatchlist', { itemId: added.result.structuredContent.data.id })).body,
    );
    expect(asked.map((message) => message.method ?? 'response')).toEqual(['response']);
    const result = (asked[0] as { result: { structuredContent: Envelope } }).result;
    expect(result.structuredContent.errors[0]!.extensions).toHaveProperty('confirmationToken');
  });

  it('only the session’s owner can answer: the same answer from another user, on its own or this session, does nothing; a malformed one is a 400', async () => {
    const { client, transport, token, questions, items, entries } = await userWith();
    const intruder = await server.newUser();
    const own = await elicitingClient(server.url, intruder.token);
    closers.push(() => own.client.close());
    const pending = removeFromWatchlist(client, items[0]!);
    await expect.poll(() => questions.length).toBe(1);
    // The intruder knows the question's id (as if it had leaked).
    const { id } = questions[0]!;
    expect(id).toMatch(/^moviedb-elicit-[0-9a-f-]{36}$/);
    expect((await answerTo(transport.sessionId!, intruder.token, id)).status).toBe(404);
    expect((await answerTo(own.transport.sessionId!, intruder.token, id)).status).toBe(202);
    // The owner's own malformed answer is refused, and the question still waits.
    const both = await answerTo(transport.sessionId!, token, id, {
      result: YES,
      error: { code: 1, message: 'x' },
    });
    expect([both.status, (JSON.parse(both.body) as { error: { code: number } }).error.code]).toEqual([
      400, -32600,
    ]);
    // The question still waits: the first answer it takes is the owner's decline, not any above.
    questions[0]!.answer({ action: 'decline' });
    expect((await pending).structuredContent.errors[0]).toMatchObject({
      classification: 'FORBIDDEN',
      extensions: { confirmation: 'declined' },
    });
    expect(await entries()).toBe(1);
  });
});

describe('stateless 2025 mode keeps the two steps, elicitation declared or not', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { MCP_MODE: 'stateless' } });
  });
  afterAll(() => server.stop());

  it('the first call answers a confirmationToken and asks nobody', async () => {
    const { token } = await server.newUser();
    const { client, questions } = await elicitingClient(server.url, token);
    try {
      const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId: '49' } });
      const first = await removeFromWatchlist(client, added.structuredContent.data.id);
      expect(first.structuredContent.errors[0]!.extensions).toHaveProperty('confirmationToken');
      expect(questions).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
