import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_MAX_AGE_MS } from '../../src/auth/account-check.js';
import { startServerTrustingIssuer, type JwksIssuer } from '../helpers/jwks-issuer.js';
import { INITIALIZE, MCP_HEADERS, callTool, connectClient } from '../helpers/mcp.js';
import {
  TEST_AUDIENCE,
  TEST_ISSUER,
  TEST_JWT_SECRET,
  classificationOf,
  dialects,
  type TestServer,
} from '../helpers/server.js';

const PUBLIC_URL = 'http://mcp.test';

/** Signs exactly these claims with the server's own secret (no defaults beyond iss and aud). */
const signLocal = (claims: Record<string, unknown>) =>
  new SignJWT({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, ...claims } as JWTPayload)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe.each(dialects)('identity: tokens name the account id, on /graphql and /mcp, on %s', (dialect) => {
  let server: TestServer;
  let issuer: JwksIssuer;

  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, issuer, stop } = await startServerTrustingIssuer(dialect, { PUBLIC_URL }));
  });
  afterAll(() => stop());

  const me = (token: string) =>
    server.graphql<{ me: { id: string; username: string } | null }>(
      '{ me { id username } }',
      undefined,
      token,
    );
  const initialize = (token: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(INITIALIZE),
    });
  const deleteUser = (username: string) =>
    server.store.handle.db.deleteFrom('users').where('username', '=', username).execute();

  /**
   * A change made through the store reaches the account check at once on SQLite (this process's own
   * connection), and on PostgreSQL when its notice arrives, a few milliseconds after the commit: there
   * the next request is polled for (src/auth/account-check.ts states the bound).
   */
  const untilNoticed = async (request: () => Promise<boolean>) => {
    if (dialect === 'postgres') await expect.poll(request, { timeout: ACCOUNT_MAX_AGE_MS }).toBe(true);
  };
  const untilRefused = (token: string) => untilNoticed(async () => (await me(token)).status === 401);

  /** Both endpoints refuse the token with 401 and an invalid_token challenge, never a 500. */
  const expectRefusedEverywhere = async (token: string) => {
    const graphql = await me(token);
    expect(graphql.status).toBe(401);
    expect(classificationOf(graphql)).toBe('UNAUTHORIZED');
    expect(graphql.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const mcp = await initialize(token);
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(((await mcp.json()) as { error: { message: string } }).error.message).toMatch(/^Unauthorized: /);
  };

  it('a login token carries the account id as sub, and me answers that account', async () => {
    const { token, username } = await server.newUser();
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string };
    const answer = await me(token);
    expect(answer.body.data!.me).toEqual({ id: payload.sub, username });
    expect(payload.sub).toMatch(/^[1-9][0-9]*$/);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a numeric sub', { sub: 2, role: 'USER', exp: inAnHour() }],
    ['an empty sub', { sub: '', role: 'USER', exp: inAnHour() }],
    ['a username as sub', { sub: 'user', role: 'USER', exp: inAnHour() }],
    ['a sub with a leading zero', { sub: '02', role: 'USER', exp: inAnHour() }],
    ['a sub beyond any id', { sub: '99999999999', role: 'USER', exp: inAnHour() }],
    ['no role', { sub: '2', exp: inAnHour() }],
    ['an unknown role', { sub: '2', role: 'ROOT', exp: inAnHour() }],
    ['a role of the wrong type', { sub: '2', role: ['ADMIN'], exp: inAnHour() }],
    ['a non-numeric exp', { sub: '2', role: 'USER', exp: 'tomorrow' }],
    ['an unknown account id', { sub: '999999', role: 'USER', exp: inAnHour() }],
  ])('a validly signed token with %s is a 401 on both endpoints', async (_label, claims) => {
    await expectRefusedEverywhere(await signLocal(claims));
  });

  it.each<[string, Record<string, unknown>]>([
    ['a numeric sub', { sub: 42, scope: 'movies:read' }],
    ['an empty sub', { sub: '', scope: 'movies:read' }],
    ['a non-numeric exp', { exp: 'soon', scope: 'movies:read' }],
  ])('an external token with %s is a 401 on both endpoints', async (_label, claims) => {
    await expectRefusedEverywhere(await issuer.sign(claims, `${PUBLIC_URL}/mcp`));
  });

  it('a deleted user’s token is refused from the next request the change is known on, on both endpoints, open sessions included', async () => {
    const { token, username } = await server.newUser();
    // Used first, so its signature check is cached and a session is open.
    expect((await me(token)).body.data!.me!.username).toBe(username);
    const client = await connectClient(server.url, token);
    expect((await callTool(client, 'myWatchlist')).isError).toBe(false);

    await deleteUser(username);

    await untilRefused(token);
    await expectRefusedEverywhere(token);
    await expect(callTool(client, 'myWatchlist')).rejects.toThrow(/401|no longer exists/);
    await client.close().catch(() => undefined);
  });

  it('registering a deleted username again never hands the old token to the new account', async () => {
    const { token: oldToken, username } = await server.newUser();
    const oldId = (await me(oldToken)).body.data!.me!.id;
    await deleteUser(username);
    const again = await server.graphql<{ register: { token: string; user: { id: string } } }>(
      'mutation ($input: RegisterInput!) { register(input: $input) { token user { id } } }',
      { input: { username, email: `${username}@example.com`, password: 'secret123' } },
    );
    const { token: newToken, user } = again.body.data!.register;
    expect(user.id).not.toBe(oldId);

    await untilRefused(oldToken);
    await expectRefusedEverywhere(oldToken);
    const add = await server.graphql(
      'mutation { addToWatchlist(subject: { movieId: "1" }) { id } }',
      undefined,
      oldToken,
    );
    expect(add.status).toBe(401);
    expect(await server.count('watchlist_items', `user_id = ${Number(user.id)}`)).toBe(0);

    expect((await me(newToken)).body.data!.me).toEqual({ id: user.id, username });
    expect((await initialize(newToken)).status).toBe(200);
  });

  it('the role is the account’s as it is now: a demoted admin’s token no longer changes the catalogue', async () => {
    const { username } = await server.newUser();
    await server.store.handle.db
      .updateTable('users')
      .set({ role: 'ADMIN' })
      .where('username', '=', username)
      .execute();
    const adminToken = await server.login(username, 'secret123');
    const create = 'mutation { createMovie(input: { title: "Demotion", releaseYear: 2001 }) { id } }';
    expect((await server.graphql(create, undefined, adminToken)).body.errors).toBeUndefined();

    await server.store.handle.db
      .updateTable('users')
      .set({ role: 'USER' })
      .where('username', '=', username)
      .execute();
    // Polled with a read only an administrator may make (other users' e-mail), so nothing is written.
    await untilNoticed(
      async () =>
        classificationOf(
          await server.graphql('{ movie(id: "1") { reviews { user { email } } } }', undefined, adminToken),
        ) === 'FORBIDDEN',
    );
    const refused = await server.graphql(create, undefined, adminToken);
    expect(refused.body.errors![0]!.extensions).toMatchObject({
      classification: 'FORBIDDEN',
      requiredRole: 'ADMIN',
    });
    expect(await server.count('movies', "title = 'Demotion'")).toBe(1);
  });

  it('an external subject acts as its own namespaced account, never a local user or admin', async () => {
    const token = await issuer.sign(
      { sub: '2', role: 'ADMIN', scope: 'watchlist:read' },
      `${PUBLIC_URL}/mcp`,
    );
    const answer = await me(token);
    expect(answer.body.data!.me!.username).toBe('oauth:2');
    expect(answer.body.data!.me!.id).not.toBe('2');
  });
});
