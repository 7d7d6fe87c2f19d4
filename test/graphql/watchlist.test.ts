import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';

const ADD = `mutation ($subject: WatchlistSubjectInput!, $status: WatchStatus) {
  addToWatchlist(subject: $subject, status: $status) {
    id status content { __typename title ... on Movie { releaseYear } ... on TvShow { startYear } }
  }
}`;
const LIST = '{ watchlist { id status content { title } } }';
const SET =
  'mutation ($itemId: ID!, $status: WatchStatus!) { setWatchStatus(itemId: $itemId, status: $status) { id status } }';
const REMOVE = 'mutation ($itemId: ID!) { removeFromWatchlist(itemId: $itemId) }';

type Added = {
  addToWatchlist: { id: string; status: string; content: { __typename: string; title: string } };
};

describe.each(dialects)('watchlist on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  it('adds a movie with status WANT_TO_WATCH by default and lists it', async () => {
    const { token } = await server.newUser();
    const added = await server.graphql<Added>(ADD, { subject: { movieId: '1' } }, token);
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data!.addToWatchlist).toMatchObject({
      status: 'WANT_TO_WATCH',
      content: { __typename: 'Movie', title: 'The Shawshank Redemption' },
    });
    const list = await server.graphql<{ watchlist: { id: string }[] }>(LIST, undefined, token);
    expect(list.body.data!.watchlist.map((i) => i.id)).toEqual([added.body.data!.addToWatchlist.id]);
  });

  it('adds a TV show with an explicit status, and lists items ordered by id', async () => {
    const { token } = await server.newUser();
    const first = await server.graphql<Added>(ADD, { subject: { tvShowId: '1' }, status: 'WATCHED' }, token);
    expect(first.body.data!.addToWatchlist).toMatchObject({
      status: 'WATCHED',
      content: { __typename: 'TvShow', title: 'Friends' },
    });
    const second = await server.graphql<Added>(ADD, { subject: { movieId: '2' } }, token);
    const list = await server.graphql<{ watchlist: { id: string }[] }>(LIST, undefined, token);
    const ids = list.body.data!.watchlist.map((i) => Number(i.id));
    expect(ids).toEqual([
      Number(first.body.data!.addToWatchlist.id),
      Number(second.body.data!.addToWatchlist.id),
    ]);
  });

  it('seed users see their seed watch list', async () => {
    const token = await server.login('user', 'user123');
    const list = await server.graphql<{ watchlist: { id: string }[] }>(LIST, undefined, token);
    expect(list.body.data!.watchlist.map((i) => i.id).slice(0, 3)).toEqual(['3', '4', '5']);
  });

  it('adding the same movie twice is BAD_REQUEST "already in your watch list" with field movieId, one row kept', async () => {
    const { token, username } = await server.newUser();
    await server.graphql(ADD, { subject: { movieId: '3' } }, token);
    const again = await server.graphql(ADD, { subject: { movieId: '3' } }, token);
    expect(again.body.data).toBeNull();
    expect(again.body.errors?.[0]).toMatchObject({
      message: 'This movie is already in your watch list',
      path: ['addToWatchlist'],
      extensions: { classification: 'BAD_REQUEST', field: 'movieId' },
    });
    expect(
      await server.count(
        'watchlist_items',
        `movie_id = 3 and user_id = (select id from users where username = '${username}')`,
      ),
    ).toBe(1);
  });

  it('20 concurrent adds of the same title give exactly one row, one success and 19 BAD_REQUESTs (never a 500)', async () => {
    const { token, username } = await server.newUser();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => server.graphql<Added>(ADD, { subject: { movieId: '10' } }, token)),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const successes = responses.filter((r) => r.body.data?.addToWatchlist);
    const duplicates = responses.filter(
      (r) => r.body.errors?.[0]?.message === 'This movie is already in your watch list',
    );
    expect(successes).toHaveLength(1);
    expect(duplicates).toHaveLength(19);
    for (const d of duplicates) expect(classificationOf(d)).toBe('BAD_REQUEST');
    expect(
      await server.count(
        'watchlist_items',
        `movie_id = 10 and user_id = (select id from users where username = '${username}')`,
      ),
    ).toBe(1);
  });

  it('an unknown title is NOT_FOUND with entityType, checked before duplicates', async () => {
    const { token } = await server.newUser();
    const response = await server.graphql(ADD, { subject: { movieId: '999' } }, token);
    expect(response.body.errors?.[0]).toMatchObject({
      message: 'Entity Movie not found for id: 999',
      extensions: { classification: 'NOT_FOUND', entityType: 'Movie' },
    });
  });

  it('a malformed id is BAD_REQUEST naming subject.movieId', async () => {
    const { token } = await server.newUser();
    const response = await server.graphql(ADD, { subject: { movieId: 'one' } }, token);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({
      classification: 'BAD_REQUEST',
      field: 'subject.movieId',
    });
  });

  it('@oneOf rejects both keys and an explicit null with a 400 and writes nothing', async () => {
    const { token } = await server.newUser();
    const before = await server.count('watchlist_items');
    for (const subject of [
      { movieId: '1', tvShowId: '1' },
      { movieId: '1', tvShowId: null },
    ]) {
      const response = await server.graphql(ADD, { subject }, token);
      expect(response.status).toBe(400);
      expect(classificationOf(response)).toBe('BAD_REQUEST');
    }
    const literal = await server.graphql(
      'mutation { addToWatchlist(subject: { movieId: "1", tvShowId: null }) { id } }',
      undefined,
      token,
    );
    expect(classificationOf(literal)).toBe('BAD_REQUEST');
    expect(await server.count('watchlist_items')).toBe(before);
  });

  it('anonymous callers get UNAUTHORIZED "Sign in to use addToWatchlist" and watchlist is refused too', async () => {
    const add = await server.graphql(ADD, { subject: { movieId: '1' } });
    expect(add.body.errors?.[0]).toMatchObject({
      message: 'Sign in to use addToWatchlist',
      extensions: { classification: 'UNAUTHORIZED' },
    });
    const list = await server.graphql(LIST);
    expect(classificationOf(list)).toBe('UNAUTHORIZED');
  });

  it('setWatchStatus changes the owner’s item; another user’s item is NOT_FOUND and unchanged', async () => {
    const owner = await server.newUser();
    const other = await server.newUser();
    const itemId = (await server.graphql<Added>(ADD, { subject: { movieId: '11' } }, owner.token)).body.data!
      .addToWatchlist.id;

    const set = await server.graphql(SET, { itemId, status: 'WATCHED' }, owner.token);
    expect(set.body.data).toEqual({ setWatchStatus: { id: itemId, status: 'WATCHED' } });

    const foreign = await server.graphql(SET, { itemId, status: 'WANT_TO_WATCH' }, other.token);
    expect(foreign.body.errors?.[0]).toMatchObject({
      message: `Entity WatchlistItem not found for id: ${itemId}`,
      extensions: { classification: 'NOT_FOUND', entityType: 'WatchlistItem' },
    });
    const missing = await server.graphql(SET, { itemId: '99999', status: 'WATCHED' }, other.token);
    // Same answer for "not yours" and "does not exist": existence is not revealed.
    expect(missing.body.errors?.[0]?.message).toBe('Entity WatchlistItem not found for id: 99999');
    expect(await server.count('watchlist_items', `id = ${Number(itemId)} and status = 'WATCHED'`)).toBe(1);
  });

  it('removeFromWatchlist removes the owner’s item; another user’s removal is NOT_FOUND and keeps it', async () => {
    const owner = await server.newUser();
    const other = await server.newUser();
    const itemId = (await server.graphql<Added>(ADD, { subject: { movieId: '12' } }, owner.token)).body.data!
      .addToWatchlist.id;
    const foreign = await server.graphql(REMOVE, { itemId }, other.token);
    expect(classificationOf(foreign)).toBe('NOT_FOUND');
    expect(await server.count('watchlist_items', `id = ${Number(itemId)}`)).toBe(1);
    const removed = await server.graphql(REMOVE, { itemId }, owner.token);
    expect(removed.body.data).toEqual({ removeFromWatchlist: true });
    expect(await server.count('watchlist_items', `id = ${Number(itemId)}`)).toBe(0);
    const again = await server.graphql(REMOVE, { itemId }, owner.token);
    expect(classificationOf(again)).toBe('NOT_FOUND');
  });
});
