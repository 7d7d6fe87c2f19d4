import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_AUDIENCE,
  TEST_ISSUER,
  TEST_JWT_SECRET,
  classificationOf,
  dialects,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

const ME = '{ me { id username email role } }';
const LOGIN = 'mutation ($input: LoginInput!) { login(input: $input) { token user { username role } } }';
const USER_ID = String(seed.users.find((u) => u.username === 'user')!.id);
const ADMIN_ID = String(seed.users.find((u) => u.username === 'admin')!.id);
const REGISTER =
  'mutation ($input: RegisterInput!) { register(input: $input) { token user { id username email role } } }';

function sign(
  claims: Record<string, unknown>,
  options: { secret?: string; exp?: number | null; iss?: string; aud?: string } = {},
) {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(USER_ID)
    .setIssuer(options.iss ?? TEST_ISSUER)
    .setAudience(options.aud ?? TEST_AUDIENCE)
    .setIssuedAt();
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 3600);
  return jwt.sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}

describe.each(dialects)('identity on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  it.each(seed.users.map((u) => [u.username, u.password, u.role]))(
    'seed user %s signs in with the seed password',
    async (username, password, role) => {
      const response = await server.graphql<{
        login: { token: string; user: { username: string; role: string } };
      }>(LOGIN, { input: { username, password } });
      expect(response.body.data!.login.user).toEqual({ username, role });
    },
  );

  it('a login token is HS256 with sub (the account id), role, iat, exp 24 h later, iss and aud', async () => {
    const token = await server.login('admin', 'admin123');
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.alg).toBe('HS256');
    expect(payload).toMatchObject({ sub: ADMIN_ID, role: 'ADMIN', iss: TEST_ISSUER, aud: TEST_AUDIENCE });
    expect(payload.exp - payload.iat).toBe(86400);
  });

  it('me answers the signed-in user, and null when anonymous', async () => {
    const token = await server.login('user', 'user123');
    const me = await server.graphql(ME, undefined, token);
    expect(me.body.data).toEqual({
      me: { id: '2', username: 'user', email: 'user@moviedb.com', role: 'USER' },
    });
    expect((await server.graphql(ME)).body.data).toEqual({ me: null });
  });

  it('a wrong password and an unknown user give the same BAD_REQUEST "Invalid credentials"', async () => {
    const wrong = await server.graphql(LOGIN, { input: { username: 'user', password: 'nope-nope' } });
    const unknown = await server.graphql(LOGIN, {
      input: { username: 'nobody-here', password: 'nope-nope' },
    });
    for (const response of [wrong, unknown]) {
      expect(response.body.errors?.[0]).toMatchObject({
        message: 'Invalid credentials',
        extensions: { classification: 'BAD_REQUEST' },
      });
    }
  });

  it('register creates a USER who can sign in; the password is stored as a salted scrypt hash', async () => {
    const input = {
      username: `newbie_${dialect}`,
      email: `newbie_${dialect}@example.com`,
      password: 'hunter22',
    };
    const registered = await server.graphql<{ register: { token: string; user: { role: string } } }>(
      REGISTER,
      { input },
    );
    expect(registered.body.errors).toBeUndefined();
    expect(registered.body.data!.register.user.role).toBe('USER');
    expect(
      (await server.graphql(ME, undefined, registered.body.data!.register.token)).body.data,
    ).toMatchObject({ me: { username: input.username } });
    await server.login(input.username, input.password);
    const { rows } = await (
      await import('kysely')
    ).sql<{
      password_hash: string;
    }>`select password_hash from users where username = ${input.username}`.execute(server.store.handle.db);
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
    expect(rows[0]!.password_hash).not.toContain(input.password);
  });

  it('register refuses a taken username, a taken e-mail and out-of-bounds input, writing nothing', async () => {
    const before = await server.count('users');
    const taken = await server.graphql(REGISTER, {
      input: { username: 'user', email: 'fresh@example.com', password: 'secret1' },
    });
    expect(taken.body.errors?.[0]).toMatchObject({
      extensions: { classification: 'BAD_REQUEST', field: 'input.username' },
    });
    const email = await server.graphql(REGISTER, {
      input: { username: 'fresh_name', email: 'user@moviedb.com', password: 'secret1' },
    });
    expect(email.body.errors?.[0]).toMatchObject({
      extensions: { classification: 'BAD_REQUEST', field: 'input.email' },
    });
    const cases = [
      [{ username: 'ab', email: 'a@example.com', password: 'secret1' }, 'input.username', 'size'],
      [{ username: 'x'.repeat(51), email: 'a@example.com', password: 'secret1' }, 'input.username', 'size'],
      [{ username: 'good_name', email: 'not-an-email', password: 'secret1' }, 'input.email', 'pattern'],
      [{ username: 'good_name', email: 'a@example.com', password: '12345' }, 'input.password', 'size'],
      [
        { username: 'good_name', email: 'a@example.com', password: 'x'.repeat(101) },
        'input.password',
        'size',
      ],
    ] as const;
    for (const [input, field, constraint] of cases) {
      const response = await server.graphql(REGISTER, { input });
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        classification: 'BAD_REQUEST',
        field,
        constraint,
      });
    }
    expect(await server.count('users')).toBe(before);
  });

  it('register refuses a username that differs from a taken one only in case, also in a race', async () => {
    const before = await server.count('users');
    for (const username of ['ADMIN', 'Admin', 'uSeR']) {
      const response = await server.graphql(REGISTER, {
        input: { username, email: `${username}-case@example.com`, password: 'secret1' },
      });
      expect(response.body.errors?.[0]).toMatchObject({
        message: 'This username is already taken',
        extensions: { classification: 'BAD_REQUEST', field: 'input.username' },
      });
    }
    // Both pass the friendly check at once: the store's index decides, and the loser is a BAD_REQUEST.
    const racing = await Promise.all(
      ['Casey_Race', 'casey_race', 'CASEY_RACE'].map((username, i) =>
        server.graphql(REGISTER, {
          input: { username, email: `race${i}@example.com`, password: 'secret1' },
        }),
      ),
    );
    const created = racing.filter((r) => r.body.data?.register);
    expect(created).toHaveLength(1);
    for (const response of racing.filter((r) => !r.body.data?.register)) {
      expect(response.status).toBe(200);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ classification: 'BAD_REQUEST' });
    }
    expect(await server.count('users')).toBe(before + 1);
  });

  describe('a bad token on /graphql is a 401 with a JSON body, never anonymous', () => {
    const expect401 = async (authorization: string) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ query: ME }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      const body = (await response.json()) as {
        errors: { message: string; extensions: { classification: string } }[];
      };
      expect(body.errors[0]!.extensions.classification).toBe('UNAUTHORIZED');
      return body.errors[0]!.message;
    };

    it('an expired token', async () => {
      const token = await sign({ role: 'USER' }, { exp: Math.floor(Date.now() / 1000) - 120 });
      expect(await expect401(`Bearer ${token}`)).toMatch(/expired/);
    });
    it('a token signed with another secret', async () => {
      const token = await sign({ role: 'USER' }, { secret: 'another-secret-that-is-also-long-enough-0000' });
      expect(await expect401(`Bearer ${token}`)).toMatch(/signature/);
    });
    it('an unsigned token (alg: none)', async () => {
      const token = new UnsecuredJWT({ role: 'ADMIN' })
        .setSubject(ADMIN_ID)
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_AUDIENCE)
        .setExpirationTime('1h')
        .encode();
      await expect401(`Bearer ${token}`);
    });
    it('a token without exp', async () => {
      const token = await sign({ role: 'USER' }, { exp: null });
      expect(await expect401(`Bearer ${token}`)).toMatch(/exp/);
    });
    it('a token for another issuer or audience', async () => {
      await expect401(`Bearer ${await sign({ role: 'USER' }, { iss: 'someone-else' })}`);
      await expect401(`Bearer ${await sign({ role: 'USER' }, { aud: 'another-api' })}`);
    });
    it('a token without a valid role, a malformed token and a non-Bearer scheme', async () => {
      await expect401(`Bearer ${await sign({ role: 'SUPERUSER' })}`);
      await expect401('Bearer not.a.jwt');
      await expect401('Basic dXNlcjp1c2VyMTIz');
    });
  });

  it('a valid token names its account by id; one for an unknown id or a username is a 401', async () => {
    const token = await sign({ role: 'USER' });
    expect((await server.graphql(ME, undefined, token)).body.data).toMatchObject({
      me: { username: 'user' },
    });
    const signed = (sub: string) =>
      new SignJWT({ role: 'USER' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_AUDIENCE)
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    for (const sub of ['999999', 'user']) {
      const write = await server.graphql(
        'mutation { addToWatchlist(subject: { movieId: "1" }) { id } }',
        undefined,
        await signed(sub),
      );
      expect(write.status).toBe(401);
      expect(classificationOf(write)).toBe('UNAUTHORIZED');
    }
  });
});
