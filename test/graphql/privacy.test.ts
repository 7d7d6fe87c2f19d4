import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

/** Every field of User, through the public path anyone can take: the reviewers of Shawshank (movie 1). */
const REVIEWERS = '{ movie(id: "1") { reviews { user { id username email role } } } }';
const SHOW_REVIEWERS = '{ tvShow(id: "2") { reviews { user { id username email role } } } }';

interface UserView {
  id: string;
  username: string;
  email: string | null;
  role: string | null;
}
type Reviewers = { movie: { reviews: { user: UserView }[] } };

const seedUser = (username: string) => seed.users.find((u) => u.username === username)!;
const reviewerIds = seed.reviews.filter((r) => r.movieId === 1).map((r) => String(r.userId));

describe.each(dialects)('privacy of user fields on %s', (dialect) => {
  let server: TestServer;
  let tokens: Record<'admin' | 'mara' | 'viktor', string>;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    tokens = {
      admin: await server.login('admin', 'admin123'),
      // mara reviewed movie 1; viktor did not.
      mara: await server.login('mara', 'password'),
      viktor: await server.login('viktor', 'password'),
    };
  });
  afterAll(() => server.stop());

  const reviewersAs = (token?: string) => server.graphql<Reviewers>(REVIEWERS, undefined, token);

  it('anonymous: every reviewer shows id and username; e-mail and role are null, each with FORBIDDEN', async () => {
    const response = await reviewersAs();
    const users = response.body.data!.movie.reviews.map((r) => r.user);
    expect(users.map((u) => u.id).sort()).toEqual([...reviewerIds].sort());
    for (const user of users) {
      expect(user.username).toBe(seed.users.find((u) => String(u.id) === user.id)!.username);
      expect(user.email).toBeNull();
      expect(user.role).toBeNull();
    }
    const errors = response.body.errors!;
    expect(errors).toHaveLength(users.length * 2);
    for (const error of errors) {
      expect(error.extensions).toMatchObject({ classification: 'FORBIDDEN' });
      expect(error.message).toMatch(/^Only this user and administrators may see User\.(email|role)$/);
    }
    expect(JSON.stringify(response.body)).not.toContain('@');
    expect(JSON.stringify(response.body)).not.toContain('ADMIN');
  });

  it('another user sees nobody else’s e-mail or role, including the admin’s', async () => {
    const response = await reviewersAs(tokens.viktor);
    const users = response.body.data!.movie.reviews.map((r) => r.user);
    expect(users.find((u) => u.username === 'admin')).toMatchObject({ email: null, role: null });
    expect(users.every((u) => u.email === null && u.role === null)).toBe(true);
    expect(response.body.errors).toHaveLength(users.length * 2);
  });

  it('a reviewer sees their own e-mail and role and nobody else’s', async () => {
    const response = await reviewersAs(tokens.mara);
    const users = response.body.data!.movie.reviews.map((r) => r.user);
    expect(users.find((u) => u.username === 'mara')).toEqual({
      id: String(seedUser('mara').id),
      username: 'mara',
      email: 'mara@example.com',
      role: 'USER',
    });
    const others = users.filter((u) => u.username !== 'mara');
    expect(others.every((u) => u.email === null && u.role === null)).toBe(true);
    expect(response.body.errors).toHaveLength(others.length * 2);
  });

  it('an admin sees every e-mail and role', async () => {
    const response = await reviewersAs(tokens.admin);
    expect(response.body.errors).toBeUndefined();
    for (const user of response.body.data!.movie.reviews.map((r) => r.user)) {
      const row = seed.users.find((u) => String(u.id) === user.id)!;
      expect(user).toEqual({
        id: user.id,
        username: row.username,
        email: expect.any(String),
        role: row.role,
      });
    }
  });

  it('TV show reviewers follow the same rule', async () => {
    const anonymous = await server.graphql<{ tvShow: { reviews: { user: UserView }[] } }>(SHOW_REVIEWERS);
    expect(anonymous.body.data!.tvShow.reviews[0]!.user).toMatchObject({
      username: 'user',
      email: null,
      role: null,
    });
    const admin = await server.graphql<{ tvShow: { reviews: { user: UserView }[] } }>(
      SHOW_REVIEWERS,
      undefined,
      tokens.admin,
    );
    expect(admin.body.data!.tvShow.reviews[0]!.user).toMatchObject({
      email: 'user@moviedb.com',
      role: 'USER',
    });
  });

  it('me, login and register show the caller its own e-mail and role', async () => {
    const me = await server.graphql<{ me: UserView }>(
      '{ me { id username email role } }',
      undefined,
      tokens.viktor,
    );
    expect(me.body).toEqual({
      data: {
        me: {
          id: String(seedUser('viktor').id),
          username: 'viktor',
          email: 'viktor@example.com',
          role: 'USER',
        },
      },
    });
    const login = await server.graphql(
      'mutation { login(input: { username: "viktor", password: "password" }) { user { email role } } }',
    );
    expect(login.body).toEqual({ data: { login: { user: { email: 'viktor@example.com', role: 'USER' } } } });
    const register = await server.graphql(
      `mutation { register(input: { username: "privacy_${dialect}", email: "privacy_${dialect}@example.com", password: "secret123" }) { user { email role } } }`,
    );
    expect(register.body).toEqual({
      data: { register: { user: { email: `privacy_${dialect}@example.com`, role: 'USER' } } },
    });
  });

  it('a review written through a tool shows its author’s username to others, never the e-mail', async () => {
    const { token, username } = await server.newUser();
    const client = await connectClient(server.url, token);
    try {
      const written = await callTool(client, 'createReview', {
        input: { subject: { movieId: '60' }, score: 6, comment: 'Fine.' },
      });
      expect(written.isError).toBe(false);
    } finally {
      await client.close();
    }
    const response = await server.graphql<{ movie: { reviews: { user: UserView }[] } }>(
      '{ movie(id: "60") { reviews { user { username email } } } }',
      undefined,
      tokens.viktor,
    );
    expect(response.body.data!.movie.reviews.map((r) => r.user)).toContainEqual({ username, email: null });
    expect(JSON.stringify(response.body)).not.toContain(`${username}@example.com`);
  });

  it('another user’s watch-list entries are unreachable: setWatchStatus and removeFromWatchlist say NOT_FOUND', async () => {
    const owner = await server.newUser();
    const added = await server.graphql<{ addToWatchlist: { id: string } }>(
      'mutation { addToWatchlist(subject: { movieId: "7" }) { id } }',
      undefined,
      owner.token,
    );
    const itemId = added.body.data!.addToWatchlist.id;
    const stranger = await server.graphql(
      `mutation { setWatchStatus(itemId: "${itemId}", status: WATCHED) { id content { title } } }`,
      undefined,
      tokens.viktor,
    );
    expect(stranger.body.errors![0]!.extensions).toMatchObject({ classification: 'NOT_FOUND' });
    const list = await server.graphql<{ watchlist: { id: string }[] }>(
      '{ watchlist { id } }',
      undefined,
      tokens.viktor,
    );
    expect(list.body.data!.watchlist.map((i) => i.id)).not.toContain(itemId);
  });
});
