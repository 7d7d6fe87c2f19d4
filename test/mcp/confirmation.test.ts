/**
 * Confirmation before a destructive tool acts (docs/mcp.md, Confirmation before destructive tools), per client kind, through real clients:
 * a 2026-07-28 client with elicitation is asked through the input-required flow (its user answers);
 * a 2025 client without elicitation and a 2026 client without it get the two-step flow (a short-lived
 * signed confirmationToken bound to caller and arguments). tools.json decides per tool. A 2025 session
 * whose client declares elicitation is asked by elicitation/create: elicitation.test.ts.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfirmationSigner } from '../../src/mcp/confirm-call.js';
import { callConfirmed, callTool, connectClient, type Envelope } from '../helpers/mcp.js';
import { MODERN, modernRequest } from '../helpers/mcp-modern.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server.js';

type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

describe.each(dialects)('confirmation of destructive tools on %s', (dialect) => {
  let server: TestServer;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await server.stop();
  });

  const newUser = async () => {
    const { token, username } = await server.newUser();
    const client = await connectClient(server.url, token);
    closers.push(() => client.close());
    return { token, username, client };
  };
  /** Adds Se7en (movie 49) or another movie and returns the entry id. */
  const addEntry = async (client: Client, movieId = '49') => {
    const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId } });
    return added.structuredContent.data.id;
  };
  const entries = (username: string) =>
    server.count('watchlist_items', `user_id = (select id from users where username = '${username}')`);

  /** A 2026-07-28 client, declaring elicitation when given an answerer, that records each question. */
  const modernClient = async (token: string, answer?: (message: string) => ElicitAnswer) => {
    const questions: string[] = [];
    const client = new ModernClient(
      { name: 'confirm-tests', version: '1' },
      {
        versionNegotiation: { mode: { pin: MODERN } },
        ...(answer ? { capabilities: { elicitation: {} } } : {}),
      },
    );
    if (answer) {
      client.setRequestHandler('elicitation/create', async (request) => {
        const message = (request.params as { message: string }).message;
        questions.push(message);
        return answer(message);
      });
    }
    await client.connect(
      new ModernTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    closers.push(() => client.close());
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as unknown as {
        isError?: boolean;
        structuredContent: Envelope;
      };
    return { call, questions };
  };

  describe('a 2026-07-28 client that declares elicitation', () => {
    it('is asked through input_required with what would be removed; its yes removes the entry in one call', async () => {
      const { token, username, client } = await newUser();
      const itemId = await addEntry(client);
      const modern = await modernClient(token, () => ({ action: 'accept', content: { confirm: true } }));
      const result = await modern.call('removeFromWatchlist', { itemId });
      expect(result.structuredContent).toEqual({ data: true, errors: [] });
      expect(modern.questions).toEqual(['Remove From Watchlist: "Se7en" (1995). Go ahead?']);
      expect(await entries(username)).toBe(0);
    });

    it('a no (declined, cancelled, or an unticked box) removes nothing and says so as FORBIDDEN', async () => {
      const { token, username, client } = await newUser();
      const itemId = await addEntry(client);
      for (const answer of [
        { action: 'decline' as const },
        { action: 'cancel' as const },
        { action: 'accept' as const, content: { confirm: false } },
      ]) {
        const modern = await modernClient(token, () => answer);
        const result = await modern.call('removeFromWatchlist', { itemId });
        expect(result.isError).toBe(true);
        expect(result.structuredContent.errors[0]).toMatchObject({
          classification: 'FORBIDDEN',
          extensions: { confirmation: 'declined' },
        });
      }
      expect(await entries(username)).toBe(1);
    });

    it('an entry that is not there is NOT_FOUND at once, without a question', async () => {
      const { token } = await newUser();
      const modern = await modernClient(token, () => ({ action: 'accept', content: { confirm: true } }));
      const result = await modern.call('removeFromWatchlist', { itemId: '999999' });
      expect(result.structuredContent.errors[0]).toMatchObject({ classification: 'NOT_FOUND' });
      expect(modern.questions).toEqual([]);
    });

    it("an id that is not one is the tool's own BAD_REQUEST, naming its argument (not the preview's), without a question", async () => {
      const { token, client } = await newUser();
      const modern = await modernClient(token, () => ({ action: 'accept', content: { confirm: true } }));
      for (const result of [
        await modern.call('removeFromWatchlist', { itemId: 'abc' }),
        await callTool(client, 'removeFromWatchlist', { itemId: 'abc' }),
      ]) {
        expect(result.structuredContent.errors[0]).toMatchObject({
          classification: 'BAD_REQUEST',
          message: "Invalid id for itemId: 'abc' is not a positive whole number",
          extensions: { field: 'itemId' },
        });
        expect((result as unknown as { content: { text: string }[] }).content[0]!.text).toBe(
          `BAD_REQUEST (not retryable): Invalid id for itemId: 'abc' is not a positive whole number (argument "itemId"). Fix that argument, then call again.`,
        );
      }
      expect(modern.questions).toEqual([]);
    });

    it('on the wire: the retry needs the signed requestState; a forged one is -32602, a missing one asks again', async () => {
      const { token, username, client } = await newUser();
      const itemId = await addEntry(client);
      const auth = { authorization: `Bearer ${token}` };
      const params = {
        name: 'removeFromWatchlist',
        arguments: { itemId },
        _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      };
      const first = await raw(`${server.url}/mcp`, {
        method: 'POST',
        ...modernRequest(1, 'tools/call', params, auth),
      });
      const asked = JSON.parse(first.body) as {
        result: {
          resultType: string;
          requestState: string;
          inputRequests: Record<string, { method: string }>;
        };
      };
      expect(asked.result.resultType).toBe('input_required');
      expect(asked.result.inputRequests.confirm!.method).toBe('elicitation/create');
      const yes = { confirm: { action: 'accept', content: { confirm: true } } };
      const retry = (id: number, extra: Record<string, unknown>) =>
        raw(`${server.url}/mcp`, {
          method: 'POST',
          ...modernRequest(id, 'tools/call', { ...params, inputResponses: yes, ...extra }, auth),
        });
      // The client's own "yes" without the server's state is not an answer to a question: asked again.
      const unasked = JSON.parse((await retry(2, {})).body) as { result: { resultType: string } };
      expect(unasked.result.resultType).toBe('input_required');
      const forged = asked.result.requestState.slice(0, -4) + 'AAAA';
      const refused = JSON.parse((await retry(3, { requestState: forged })).body) as {
        error: { code: number };
      };
      expect(refused.error.code).toBe(-32602);
      // The state of another entry's question does not confirm this one.
      const otherItem = await addEntry(client, '9');
      const other = await raw(`${server.url}/mcp`, {
        method: 'POST',
        ...modernRequest(4, 'tools/call', { ...params, arguments: { itemId: otherItem } }, auth),
      });
      const otherState = (JSON.parse(other.body) as typeof asked).result.requestState;
      const crossed = JSON.parse((await retry(5, { requestState: otherState })).body) as {
        result: { resultType: string };
      };
      expect(crossed.result.resultType).toBe('input_required');
      expect(await entries(username)).toBe(2);
      const confirmed = JSON.parse((await retry(6, { requestState: asked.result.requestState })).body) as {
        result: { structuredContent: unknown };
      };
      expect(confirmed.result.structuredContent).toEqual({ data: true, errors: [] });
      expect(await entries(username)).toBe(1);
    });
  });

  describe('the two-step flow', () => {
    it('a 2025 client without elicitation: the first call removes nothing and answers a token; the second removes', async () => {
      const { username, client } = await newUser();
      const itemId = await addEntry(client);
      const first = await callTool(client, 'removeFromWatchlist', { itemId });
      expect(first.isError).toBe(true);
      const error = first.structuredContent.errors[0]!;
      expect(error).toMatchObject({
        classification: 'BAD_REQUEST',
        retryable: false,
        extensions: {
          field: 'confirmationToken',
          confirmationToken: expect.any(String),
          expiresAt: expect.any(String),
          target: { id: itemId, status: 'WANT_TO_WATCH', content: { title: 'Se7en', releaseYear: 1995 } },
        },
      });
      expect(error.message).toMatch(
        /^Nothing done yet: removeFromWatchlist asks the user first\. It would act on "Se7en" \(1995\)\./,
      );
      // The text block, all a text-only client reads, carries the token too.
      const text = (first.content as { text: string }[])[0]!.text;
      expect(text).toContain(error.extensions!.confirmationToken as string);
      expect(Date.parse(error.extensions!.expiresAt as string) - Date.now()).toBeLessThanOrEqual(300_000);
      expect(await entries(username)).toBe(1);
      const second = await callTool(client, 'removeFromWatchlist', {
        itemId,
        confirmationToken: error.extensions!.confirmationToken,
      });
      expect(second.structuredContent).toEqual({ data: true, errors: [] });
      expect(await entries(username)).toBe(0);
    });

    it('a 2026-07-28 client without elicitation gets the two steps', async () => {
      const { token, username, client } = await newUser();
      const itemId = await addEntry(client);
      const modern = await modernClient(token);
      const first = await modern.call('removeFromWatchlist', { itemId });
      const confirmationToken = first.structuredContent.errors[0]!.extensions!.confirmationToken;
      expect(confirmationToken).toEqual(expect.any(String));
      expect(await entries(username)).toBe(1);
      const second = await modern.call('removeFromWatchlist', { itemId, confirmationToken });
      expect(second.structuredContent).toEqual({ data: true, errors: [] });
      expect(await entries(username)).toBe(0);
    });

    it('a wrong, foreign, reused-for-other-arguments, expired or 2026 requestState token is a BAD_REQUEST naming it', async () => {
      const a = await newUser();
      const b = await newUser();
      const itemA = await addEntry(a.client);
      const otherA = await addEntry(a.client, '9');
      const itemB = await addEntry(b.client);
      const tokenOf = async (client: Client, itemId: string) =>
        (await callTool(client, 'removeFromWatchlist', { itemId })).structuredContent.errors[0]!.extensions!
          .confirmationToken as string;
      const tokenA = await tokenOf(a.client, itemA);
      const tokenB = await tokenOf(b.client, itemB);
      // The same payload, signed correctly, but expired: only the server's key can make one.
      const payload = JSON.parse(Buffer.from(tokenA.split('.')[1]!, 'base64url').toString()) as { p: object };
      const expired = await createConfirmationSigner(TEST_JWT_SECRET, -10).sign(payload.p as never);
      // A requestState (a question asked, not answered) is not a confirmation.
      const asked = await createConfirmationSigner(TEST_JWT_SECRET).sign({
        ...(payload.p as { c: string }),
        k: 'asked',
      });
      const cases: Array<[string, string, RegExp]> = [
        ['garbage', 'not-a-token', /not one this server issued/],
        ['forged', tokenA.slice(0, -3) + 'abc', /not one this server issued/],
        ['a JWT', a.token, /not one this server issued/],
        ['another user’s', tokenB, /issued for another call/],
        ['for other arguments', tokenA, /issued for another call/],
        ['expired', expired, /has expired/],
        ['a requestState', asked, /not one this server issued/],
      ];
      for (const [name, confirmationToken, message] of cases) {
        const itemId = name === 'for other arguments' ? otherA : itemA;
        const result = await callTool(a.client, 'removeFromWatchlist', { itemId, confirmationToken });
        expect(result.structuredContent.errors[0], name).toMatchObject({
          classification: 'BAD_REQUEST',
          extensions: { field: 'confirmationToken' },
        });
        expect(result.structuredContent.errors[0]!.message, name).toMatch(message);
      }
      expect([await entries(a.username), await entries(b.username)]).toEqual([2, 1]);
    });

    it('anonymous callers get UNAUTHORIZED naming the tool, and no token', async () => {
      const anonymous = await connectClient(server.url);
      closers.push(() => anonymous.close());
      const result = await callTool(anonymous, 'removeFromWatchlist', { itemId: '1' });
      expect(result.structuredContent.errors[0]).toMatchObject({ classification: 'UNAUTHORIZED' });
      expect(result.structuredContent.errors[0]!.message).toBe('Sign in to use removeFromWatchlist');
      expect(result.structuredContent.errors[0]!.extensions).toBeUndefined();
    });

    it('a token from one replica is honoured by another sharing the secret', async () => {
      const replica = await startTestServer(dialect, {
        env:
          dialect === 'sqlite'
            ? { DATA_DIR: server.dataDir }
            : { DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_SCHEMA: server.schemaName },
      });
      try {
        const { token, username, client } = await newUser();
        const itemId = await addEntry(client);
        const first = await callTool(client, 'removeFromWatchlist', { itemId });
        const confirmationToken = first.structuredContent.errors[0]!.extensions!.confirmationToken;
        const elsewhere = await connectClient(replica.url, token);
        try {
          const second = await callTool(elsewhere, 'removeFromWatchlist', { itemId, confirmationToken });
          expect(second.structuredContent).toEqual({ data: true, errors: [] });
        } finally {
          await elsewhere.close();
        }
        expect(await entries(username)).toBe(0);
      } finally {
        await replica.stop();
      }
    });
  });
});

describe('confirmation is configured per tool in tools.json', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'moviedb-ops-'));
    cpSync(path.resolve(import.meta.dirname, '../../operations'), dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'tools.json'),
      JSON.stringify({
        removeFromWatchlist: { annotations: { destructiveHint: true }, confirm: 'never' },
        setWatchStatus: { confirm: 'always' },
      }),
    );
    // A preview for a tool that no longer asks is refused at boot; it goes with the setting.
    rmSync(path.join(dir, 'previews'), { recursive: true });
    server = await startTestServer('sqlite', { env: { OPERATIONS_DIR: dir } });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('"never" acts at once; "always" asks, naming the arguments when no preview is configured', async () => {
    const client = await connectClient(server.url, (await server.newUser()).token);
    try {
      const added = await callTool<{ id: string }>(client, 'addToWatchlist', { subject: { movieId: '8' } });
      const itemId = added.structuredContent.data.id;
      const asked = await callTool(client, 'setWatchStatus', { itemId, status: 'WATCHED' });
      expect(asked.structuredContent.errors[0]!.message).toContain(
        `It would act on {"itemId":"${itemId}","status":"WATCHED"}`,
      );
      const set = await callConfirmed(client, 'setWatchStatus', { itemId, status: 'WATCHED' });
      expect(set.structuredContent.data).toEqual({ id: itemId, status: 'WATCHED' });
      const removed = await callTool(client, 'removeFromWatchlist', { itemId });
      expect(removed.structuredContent).toEqual({ data: true, errors: [] });
      const tools = (await client.listTools()).tools;
      const properties = (name: string) =>
        Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {});
      expect(properties('removeFromWatchlist')).not.toContain('confirmationToken');
      expect(properties('setWatchStatus')).toContain('confirmationToken');
    } finally {
      await client.close();
    }
  });
});
