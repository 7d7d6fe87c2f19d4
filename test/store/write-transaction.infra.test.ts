/**
 * Every write goes through the one write helper, which checks the caller's signal before it commits: a
 * write whose caller gave up (deadline, MCP cancellation, a /graphql client that disconnected) before
 * its commit leaves the database unchanged, and a deadline that fires after the commit went out says so
 * and is not retryable. A write that is one statement is sent alone on PostgreSQL, and so is its own
 * commit: a deadline while it is in flight says the change may have been applied.
 * PostgreSQL behind the loopback proxy, frozen right after a chosen statement.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, withConfirmation } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';

const TOOL_TIMEOUT_MS = 1500;

interface WriteCase {
  tool: string;
  /** The tool's arguments, after setting up what it needs (an existing watch-list entry). */
  args(user: SignedIn): Promise<Record<string, unknown>>;
}

interface SignedIn {
  token: string;
  username: string;
  client: Client;
}

describe.skipIf(!databaseUrl)('writes whose caller gave up before the commit', () => {
  let env: ProxiedServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    env = await startProxiedServer({
      MCP_TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      GRAPHQL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await env.stop();
  });

  async function signIn(): Promise<SignedIn> {
    const { token, username } = await env.server.newUser();
    const client = await connectClient(env.server.url, token);
    clients.push(client);
    return { token, username, client };
  }

  async function addItem(user: SignedIn, movieId: string): Promise<string> {
    const added = await env.server.graphql<{ addToWatchlist: { id: string } }>(
      'mutation ($id: ID!) { addToWatchlist(subject: { movieId: $id }) { id } }',
      { id: movieId },
      user.token,
    );
    return added.body.data!.addToWatchlist.id;
  }

  /** Everything the user owns, read straight from the database. */
  async function rowsOf(username: string) {
    const db = env.server.store.handle.db;
    const user = await db
      .selectFrom('users')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    return {
      watchlist: await db
        .selectFrom('watchlist_items')
        .select(['id', 'movie_id', 'status'])
        .where('user_id', '=', user.id)
        .orderBy('id')
        .execute(),
      reviews: await db
        .selectFrom('reviews')
        .select(['id', 'movie_id', 'score'])
        .where('user_id', '=', user.id)
        .orderBy('id')
        .execute(),
    };
  }

  /** Audit lines of `tool` calls that ended as cancelled by the client. */
  function cancelledCalls(tool: string): number {
    return env.logs
      .lines()
      .filter((line) => line.audit === 'tool_call' && line.tool === tool && line.outcome === 'CANCELLED')
      .length;
  }

  /** Unfreezes the database and waits until the abandoned transaction has rolled back. */
  async function resumeAndAwaitRollback(rollbacksBefore: number) {
    env.proxy.resume();
    await expect.poll(() => env.rollbacks(), { timeout: 10_000 }).toBeGreaterThan(rollbacksBefore);
  }

  // The writes that take a transaction (a check, then the write).
  const cases: WriteCase[] = [
    {
      tool: 'createReview',
      args: async () => ({ input: { subject: { movieId: '33' }, score: 7, comment: 'Solid' } }),
    },
  ];

  interface SingleStatementCase extends WriteCase {
    /** The statement the write is sent after: the proxy freezes once it completes (none: at once). */
    before?: RegExp;
  }
  const singleStatementCases: SingleStatementCase[] = [
    {
      tool: 'addToWatchlist',
      args: async () => ({ subject: { movieId: '30' } }),
      // The movie it names is looked up after the account.
      before: /^select \* from "movies" where "id" in/i,
    },
    {
      tool: 'setWatchStatus',
      // The write is the call's first statement: scoped to the token's account, it reads nothing first.
      args: async (user) => ({ itemId: await addItem(user, '31'), status: 'WATCHED' }),
    },
    {
      tool: 'removeFromWatchlist',
      // Destructive: confirmed first (the asking call only reads), so the call under test writes.
      args: async (user) =>
        withConfirmation(user.client, 'removeFromWatchlist', { itemId: await addItem(user, '32') }),
    },
  ];

  it.each(singleStatementCases)(
    '$tool, one statement, past its deadline while that statement is in flight says it may have been applied',
    async ({ tool, args, before }) => {
      const user = await signIn();
      const toolArgs = await args(user);
      const rows = await rowsOf(user.username);
      if (before) env.stallAfter(before);
      else env.proxy.stall();
      const result = await callTool(user.client, tool, toolArgs);
      if (before) expect(env.stalled()).toBe(true);
      expect(result.structuredContent.errors[0]).toMatchObject({
        classification: 'TIMEOUT',
        retryable: false,
        extensions: { writeOutcome: 'unknown' },
      });
      env.proxy.resume();
      // And so it was: the statement lands once the database answers.
      await expect
        .poll(async () => JSON.stringify(await rowsOf(user.username)), { timeout: 10_000 })
        .not.toBe(JSON.stringify(rows));
    },
  );

  it.each(cases)(
    '$tool past its deadline before the commit answers TIMEOUT, retryable, and writes nothing',
    async ({ tool, args }) => {
      const user = await signIn();
      const toolArgs = await args(user);
      const before = await rowsOf(user.username);
      const rollbacks = env.rollbacks();
      // Frozen inside the transaction: BEGIN went through, the write itself hangs.
      env.stallAfter(/^begin/i);
      const result = await callTool(user.client, tool, toolArgs);
      expect(env.stalled()).toBe(true);
      expect(result.isError).toBe(true);
      expect(result.structuredContent.errors[0]).toMatchObject({
        classification: 'TIMEOUT',
        retryable: true,
        extensions: { writeOutcome: 'none' },
      });
      expect(result.structuredContent.errors[0]!.message).toMatch(/before anything was written/);
      // The write reaches the database once it is unfrozen, and is rolled back instead of committed.
      await resumeAndAwaitRollback(rollbacks);
      expect(await rowsOf(user.username)).toEqual(before);
    },
  );

  it.each(cases)('$tool cancelled by the client before the commit writes nothing', async ({ tool, args }) => {
    const user = await signIn();
    const toolArgs = await args(user);
    const before = await rowsOf(user.username);
    const rollbacks = env.rollbacks();
    env.stallAfter(/^begin/i);
    const controller = new AbortController();
    const pending = user.client.callTool({ name: tool, arguments: toolArgs }, undefined, {
      signal: controller.signal,
    });
    await expect.poll(() => env.stalled(), { timeout: 5000 }).toBe(true);
    const cancelledBefore = cancelledCalls(tool);
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    // The cancellation is a request of its own, and verifying its bearer asks the (frozen) database for
    // the account: unfreeze only once the server has acted on it, as it would have without the freeze.
    await expect.poll(() => cancelledCalls(tool), { timeout: 5000 }).toBeGreaterThan(cancelledBefore);
    await resumeAndAwaitRollback(rollbacks);
    expect(await rowsOf(user.username)).toEqual(before);
  });

  it('a /graphql write whose client disconnects before the commit writes nothing', async () => {
    const user = await signIn();
    const before = await rowsOf(user.username);
    const rollbacks = env.rollbacks();
    env.stallAfter(/^begin/i);
    const controller = new AbortController();
    const pending = fetch(`${env.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      body: JSON.stringify({
        query: 'mutation { createReview(input: { subject: { movieId: "34" }, score: 5 }) { id } }',
      }),
      signal: controller.signal,
    });
    await expect.poll(() => env.stalled(), { timeout: 5000 }).toBe(true);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await resumeAndAwaitRollback(rollbacks);
    expect(await rowsOf(user.username)).toEqual(before);
  });

  it('a deadline that fires after the commit went out says the change may have been applied and is not retryable', async () => {
    const user = await signIn();
    const args = { input: { subject: { movieId: '35' }, score: 8 } };
    // Frozen after the INSERT ran: what hangs is the COMMIT.
    env.stallAfter(/^insert into "reviews"/i);
    const result = await callTool(user.client, 'createReview', args);
    expect(env.stalled()).toBe(true);
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'TIMEOUT',
      retryable: false,
      extensions: { writeOutcome: 'unknown' },
    });
    expect(result.structuredContent.errors[0]!.message).toMatch(
      /may have been applied: check the current state before calling it again/,
    );
    env.proxy.resume();
    // And so it was: the commit lands once the database answers.
    await expect.poll(async () => (await rowsOf(user.username)).reviews.length, { timeout: 10_000 }).toBe(1);
  });

  it('a connection lost while the commit is under way is UNAVAILABLE but not retryable: the change may have landed', async () => {
    const user = await signIn();
    env.stallAfter(/^insert into "reviews"/i);
    const pending = callTool(user.client, 'createReview', {
      input: { subject: { movieId: '37' }, score: 3 },
    });
    await expect.poll(() => env.stalled(), { timeout: 5000 }).toBe(true);
    // The COMMIT is on its way; the connection is cut under it.
    env.proxy.down();
    const result = await pending;
    env.proxy.resume();
    env.proxy.up();
    expect(result.structuredContent.errors[0]).toMatchObject({
      classification: 'UNAVAILABLE',
      retryable: false,
      extensions: { writeOutcome: 'unknown' },
    });
    expect(result.structuredContent.errors[0]!.message).toMatch(/may have been applied/);
  });

  interface GraphQLWriteCase {
    name: string;
    mutation: string;
    table: string;
    /** Signs in as whoever may run it and prepares what it needs; returns the token and variables. */
    prepare(): Promise<{ token?: string; variables?: Record<string, unknown> }>;
  }
  const admin = () => env.server.login('admin', 'admin123');
  const newMovie = async (token: string) => {
    const created = await env.server.graphql<{ createMovie: { id: string } }>(
      'mutation { createMovie(input: { title: "Doomed", releaseYear: 2001 }) { id } }',
      undefined,
      token,
    );
    return created.body.data!.createMovie.id;
  };
  const graphqlWrites: GraphQLWriteCase[] = [
    {
      name: 'register',
      mutation: 'mutation ($input: RegisterInput!) { register(input: $input) { token } }',
      table: 'users',
      prepare: async () => ({
        variables: { input: { username: 'late_comer', email: 'late@example.com', password: 'secret123' } },
      }),
    },
    {
      name: 'createMovie',
      mutation: 'mutation { createMovie(input: { title: "Never", releaseYear: 1999 }) { id } }',
      table: 'movies',
      prepare: async () => ({ token: await admin() }),
    },
    {
      name: 'deleteMovie',
      mutation: 'mutation ($id: ID!) { deleteMovie(id: $id) }',
      table: 'movies',
      prepare: async () => {
        const token = await admin();
        return { token, variables: { id: await newMovie(token) } };
      },
    },
    {
      name: 'deleteReview',
      mutation: 'mutation ($id: ID!) { deleteReview(id: $id) }',
      table: 'reviews',
      prepare: async () => {
        const user = await signIn();
        const review = await env.server.graphql<{ createReview: { id: string } }>(
          'mutation { createReview(input: { subject: { movieId: "38" }, score: 6 }) { id } }',
          undefined,
          user.token,
        );
        return { token: user.token, variables: { id: review.body.data!.createReview.id } };
      },
    },
  ];

  it.each(graphqlWrites)(
    '/graphql $name past its deadline before the commit writes nothing ($table unchanged)',
    async ({ mutation, table, prepare }) => {
      const { token, variables } = await prepare();
      const before = await env.server.count(table);
      const rollbacks = env.rollbacks();
      env.stallAfter(/^begin/i);
      const response = await env.server.graphql(mutation, variables, token);
      expect(response.body.errors![0]!.extensions).toMatchObject({
        classification: 'TIMEOUT',
        writeOutcome: 'none',
      });
      await resumeAndAwaitRollback(rollbacks);
      expect(await env.server.count(table)).toBe(before);
    },
  );

  it('the same rule on /graphql: a deadline before the commit is a TIMEOUT in a normal GraphQL response, nothing written', async () => {
    const user = await signIn();
    const before = await rowsOf(user.username);
    const rollbacks = env.rollbacks();
    env.stallAfter(/^begin/i);
    const response = await env.server.graphql(
      'mutation { createReview(input: { subject: { movieId: "36" }, score: 4 }) { id } }',
      undefined,
      user.token,
    );
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    expect(response.body.errors![0]!.extensions).toMatchObject({
      classification: 'TIMEOUT',
      retryable: true,
      writeOutcome: 'none',
      timeoutMs: TOOL_TIMEOUT_MS,
    });
    await resumeAndAwaitRollback(rollbacks);
    expect(await rowsOf(user.username)).toEqual(before);
  });
});
