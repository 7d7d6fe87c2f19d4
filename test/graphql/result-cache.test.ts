/**
 * The result cache of shared public reads (src/graphql/result-cache.ts), through the front door: a
 * public read is served from it (the /metrics hit counter says so) with the same answer, on /graphql and
 * through a tool; every write clears it, so the next read shows the change, but for a write of only the
 * caller's own watch list, or signing in, which leave the shared answers alone; nothing that depends on the
 * caller (an @selfOrAdmin field, a personal argument, the watch list) is ever shared; RESULT_CACHE_MB=0
 * turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

/** The result cache's lookup counters on /metrics. */
async function lookups(server: TestServer): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const count = (result: string) =>
    Number(
      new RegExp(`moviedb_result_cache_lookups_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0,
    );
  return { hit: count('hit'), miss: count('miss') };
}

const SUMMARY = 'query ($id: ID!) { summarizeMovieReviews(movieId: $id) { reviewCount averageScore } }';
const REVIEW = 'mutation ($input: CreateReviewInput!) { createReview(input: $input) { id } }';
const EMAILS = '{ movie(id: "1") { reviews { user { username email } } } }';
const RECOMMEND = 'query ($x: Boolean) { recommendMoviesForMood(mood: HORROR, excludeWatched: $x) { id } }';

describe.each(dialects)('the result cache (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  it('serves a repeated public read from the cache with the same answer', async () => {
    const query = '{ movie(id: "2") { title directors { name } } }';
    const first = await server.graphql(query);
    const before = await lookups(server);
    const second = await server.graphql(query);
    const after = await lookups(server);
    expect(second.body).toEqual(first.body);
    expect(after.hit).toBe(before.hit + 1);
  });

  it('a write clears it: the next read shows the change, on /graphql and through a tool', async () => {
    const read = async () =>
      (await server.graphql<{ summarizeMovieReviews: { reviewCount: number } }>(SUMMARY, { id: '3' })).body
        .data!.summarizeMovieReviews.reviewCount;
    const client = await connectClient(server.url);
    const tool = async () =>
      (await callTool<{ reviewCount: number }>(client, 'summarizeMovieReviews', { movieId: '3' }))
        .structuredContent.data.reviewCount;
    try {
      const count = await read();
      expect(await read()).toBe(count);
      expect(await tool()).toBe(count);
      expect(await tool()).toBe(count);
      const { token } = await server.newUser();
      const written = await server.graphql(REVIEW, { input: { subject: { movieId: '3' }, score: 7 } }, token);
      expect(written.body.errors).toBeUndefined();
      expect(await read()).toBe(count + 1);
      expect(await tool()).toBe(count + 1);
    } finally {
      await client.close();
    }
  });

  it('a watch-list write, a refused one or signing in keeps the shared results; one that also writes a review clears them', async () => {
    // The watch-list writes are @ownRows: no shared answer shows them, so clearing everything on every
    // replica at each one would only make every reader pay for one caller's list.
    const { token, username } = await server.newUser();
    const SHARED = '{ movie(id: "7") { title } }';
    await server.graphql(SHARED);
    const hits = async () => (await lookups(server)).hit;
    const added = await server.graphql<{ addToWatchlist: { id: string } }>(
      'mutation { addToWatchlist(subject: { movieId: "7" }) { id } }',
      {},
      token,
    );
    const itemId = added.body.data!.addToWatchlist.id;
    const writes = [
      ['setWatchStatus', 'mutation ($id: ID!) { setWatchStatus(itemId: $id, status: WATCHED) { id } }'],
      [
        'an aliased pair',
        'mutation ($id: ID!) { a: setWatchStatus(itemId: $id, status: WANT_TO_WATCH) { id } ...F } fragment F on Mutation { b: setWatchStatus(itemId: $id, status: WATCHED) { id } }',
      ],
      ['removeFromWatchlist', 'mutation ($id: ID!) { removeFromWatchlist(itemId: $id) }'],
    ] as const;
    for (const [what, write] of writes) {
      const written = await server.graphql(write, { id: itemId }, token);
      expect(written.body.errors, what).toBeUndefined();
      const before = await hits();
      await server.graphql(SHARED);
      expect(await hits(), what).toBe(before + 1);
    }
    // Nor can anyone clear it with a mutation that writes nothing: one its @auth rule refuses the caller
    // (no resolver ran), only __typename, or signing in (@writesNoRows), with the right password or not.
    const login = (password: string) => ({
      document: 'mutation ($input: LoginInput!) { login(input: $input) { token } }',
      variables: { input: { username, password } },
    });
    const review = {
      document: 'mutation { createReview(input: { subject: { movieId: "7" }, score: 8 }) { id } }',
      variables: {},
    };
    const deleteMovie = { document: 'mutation { deleteMovie(id: "7") }', variables: {} };
    const quiet = [
      ['a setWatchStatus', { document: writes[0][1], variables: { id: itemId } }, 'refused', undefined],
      ['a createReview', review, 'refused', undefined],
      ['a deleteMovie', deleteMovie, 'refused', undefined],
      ["a USER's deleteMovie", deleteMovie, 'refused', token],
      ['__typename', { document: 'mutation { __typename }', variables: {} }, 'answered', undefined],
      ['a login', login('secret123'), 'answered', undefined],
      ['a failed login', login('wrong password'), 'refused', undefined],
    ] as const;
    for (const [what, { document, variables }, outcome, caller] of quiet) {
      const written = await server.graphql(document, variables, caller);
      expect(written.status, what).toBe(200);
      expect(written.body.errors !== undefined ? 'refused' : 'answered', what).toBe(outcome);
      const before = await hits();
      await server.graphql(SHARED);
      expect(await hits(), what).toBe(before + 1);
    }
    const mixed = await server.graphql(
      'mutation { addToWatchlist(subject: { movieId: "7" }) { id } createReview(input: { subject: { movieId: "7" }, score: 8 }) { id } }',
      {},
      token,
    );
    expect(mixed.body.errors).toBeUndefined();
    const before = await lookups(server);
    await server.graphql(SHARED);
    expect(await lookups(server)).toEqual({ hit: before.hit, miss: before.miss + 1 });
  });

  it('never shares an @selfOrAdmin field: what an admin sees is not what anyone else is served', async () => {
    const admin = await server.login('admin', 'admin123');
    const asAdmin = await server.graphql<{ movie: { reviews: { user: { email: string | null } }[] } }>(
      EMAILS,
      {},
      admin,
    );
    expect(asAdmin.body.errors).toBeUndefined();
    expect(asAdmin.body.data!.movie.reviews[0]!.user.email).toEqual(expect.any(String));
    for (let i = 0; i < 2; i += 1) {
      const anonymous = await server.graphql<{ movie: { reviews: { user: { email: string | null } }[] } }>(
        EMAILS,
      );
      expect(anonymous.body.data!.movie.reviews.every((review) => review.user.email === null)).toBe(true);
      expect(anonymous.body.errors?.[0]?.extensions?.classification).toBe('FORBIDDEN');
    }
  });

  it('never shares a personal argument: excludeWatched leaves out only the caller’s own watched movies', async () => {
    const { token } = await server.newUser();
    const added = await server.graphql<{ addToWatchlist: { id: string } }>(
      'mutation { addToWatchlist(subject: { movieId: "49" }, status: WATCHED) { id } }',
      {},
      token,
    );
    expect(added.body.errors).toBeUndefined();
    const ids = async (variables: Record<string, unknown>, bearer?: string) =>
      (
        await server.graphql<{ recommendMoviesForMood: { id: string }[] }>(RECOMMEND, variables, bearer)
      ).body.data!.recommendMoviesForMood.map((movie) => movie.id);
    for (let i = 0; i < 2; i += 1) {
      expect(await ids({ x: true })).toContain('49');
      expect(await ids({ x: true }, token)).not.toContain('49');
      expect(await ids({ x: false }, token)).toContain('49');
    }
  });

  it('never shares a per-viewer read: two users each get their own watch list', async () => {
    const [a, b] = [await server.newUser(), await server.newUser()];
    await server.graphql('mutation { addToWatchlist(subject: { movieId: "5" }) { id } }', {}, a.token);
    const list = async (token: string) =>
      (await server.graphql<{ watchlist: unknown[] }>('{ watchlist { id } }', {}, token)).body.data!
        .watchlist;
    expect(await list(a.token)).toHaveLength(1);
    expect(await list(b.token)).toHaveLength(0);
    expect(await list(a.token)).toHaveLength(1);
  });
});

describe('RESULT_CACHE_MB=0', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { env: { RESULT_CACHE_MB: '0' } });
  });
  afterAll(() => server.stop());

  it('turns the cache off: nothing is looked up', async () => {
    for (let i = 0; i < 3; i += 1) await server.graphql('{ movie(id: "2") { title } }');
    expect(await lookups(server)).toEqual({ hit: 0, miss: 0 });
  });
});
