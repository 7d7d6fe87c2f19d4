/**
 * The abuse limits through the front door: each limit is configured small with a short window, hit,
 * answered as RATE_LIMITED (HTTP 429 with Retry-After on /graphql, a tool error on MCP), and recovered
 * once the window has passed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Env } from '../../src/config.js';
import { callTool } from '../helpers/mcp.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { useMovableWallClock } from '../helpers/time.js';

const ME = '{ me { username } }';
const MOVIE = '{ movie(id: "1") { title } }';
const LOGIN = 'mutation ($input: LoginInput!) { login(input: $input) { token } }';
const REGISTER = 'mutation ($input: RegisterInput!) { register(input: $input) { token } }';

interface Answer {
  status: number;
  retryAfter: string | null;
  contentType: string | null;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { classification?: string; retryAfterSeconds?: number } }[];
  };
}

describe.each(dialects)('abuse limits on %s', (dialect) => {
  let server: TestServer | undefined;
  const clients: Client[] = [];
  // The in-memory limiters count fixed windows on Date.now(): the test moves that clock, not waits.
  let clock: ReturnType<typeof useMovableWallClock>;
  beforeEach(() => {
    clock = useMovableWallClock();
  });
  /** Moves the clock past a refusal: exactly the Retry-After it named (whole seconds, rounded up). */
  const skipPast = (seconds: number | string | null | undefined) => clock.advance(Number(seconds) * 1000);
  afterEach(async () => {
    clock.restore();
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await server?.stop();
    server = undefined;
  });

  async function start(env: Env): Promise<TestServer> {
    server = await startTestServer(dialect, { env: { RATE_LIMITS: 'on', ...env } });
    return server;
  }

  async function post(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${server!.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      contentType: response.headers.get('content-type'),
      body: (await response.json()) as Answer['body'],
    };
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const login = (username: string, password: string, headers: Record<string, string> = {}) =>
    post(LOGIN, { input: { username, password } }, headers);

  async function mcpClient(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'rate-limit-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }

  /** A refused /graphql operation: 429, Retry-After within the window, a classified body without data. */
  function expectRefused(answer: Answer, windowSeconds: number) {
    expect(answer.status).toBe(429);
    const seconds = Number(answer.retryAfter);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(windowSeconds);
    expect(answer.contentType).toMatch(/^application\/graphql-response\+json/);
    expect(answer.body.data ?? null).toBeNull();
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors![0]!.extensions).toEqual({
      classification: 'RATE_LIMITED',
      retryAfterSeconds: seconds,
    });
  }

  it('a signed-in user over its operations quota gets 429 with Retry-After on /graphql, and recovers after the window', async () => {
    await start({ RATE_LIMIT_USER_OPERATIONS: '3', RATE_LIMIT_WINDOW_SECONDS: '2' });
    const { token } = await server!.newUser();
    const other = await server!.newUser();
    for (let i = 0; i < 3; i += 1) expect((await post(ME, {}, bearer(token))).status).toBe(200);
    const refused = await post(ME, {}, bearer(token));
    expectRefused(refused, 2);
    expect(refused.body.errors![0]!.message).toMatch(/^Too many requests: this user may run 3 operations/);
    // Counted per user, not per address: another user from the same address is unaffected.
    expect((await post(ME, {}, bearer(other.token))).body.data).toEqual({ me: { username: other.username } });
    // application/json clients get the same 429 with a JSON body.
    const json = await fetch(`${server!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...bearer(token) },
      body: JSON.stringify({ query: ME }),
    });
    expect(json.status).toBe(429);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.headers.get('retry-after')).toMatch(/^[12]$/);

    skipPast(refused.retryAfter);
    expect((await post(ME, {}, bearer(token))).status).toBe(200);
  });

  it('tool calls and /graphql requests draw on one quota per user; over it a tool answers a RATE_LIMITED tool error', async () => {
    await start({ RATE_LIMIT_USER_OPERATIONS: '3', RATE_LIMIT_WINDOW_SECONDS: '2' });
    const { token } = await server!.newUser();
    const client = await mcpClient(bearer(token));
    expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBe(false);
    expect((await post(ME, {}, bearer(token))).status).toBe(200);
    expect((await callTool(client, 'myWatchlist')).isError).toBe(false);

    const refused = await callTool(client, 'getMovie', { id: '1' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.data).toBeNull();
    const [error] = refused.structuredContent.errors;
    expect(error).toMatchObject({ classification: 'RATE_LIMITED', retryable: true });
    const seconds = error!.extensions?.retryAfterSeconds as number;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(2);
    // The tool calls counted on /graphql too.
    expectRefused(await post(ME, {}, bearer(token)), 2);

    skipPast(seconds);
    expect((await callTool(client, 'getMovie', { id: '1' })).structuredContent.data).toMatchObject({
      title: 'The Shawshank Redemption',
    });
  });

  it('anonymous callers are counted per client address on /graphql and MCP; a signed-in user is not held by it', async () => {
    await start({ RATE_LIMIT_ANON_OPERATIONS: '4', RATE_LIMIT_WINDOW_SECONDS: '2' });
    const token = await server!.login('user', 'user123'); // anonymous operation 1
    const anonymous = await mcpClient({});
    expect((await callTool(anonymous, 'getMovie', { id: '1' })).isError).toBe(false); // 2
    expect((await post(MOVIE)).status).toBe(200); // 3
    expect((await post(MOVIE)).status).toBe(200); // 4
    const refused = await post(MOVIE);
    expectRefused(refused, 2);
    expect(refused.body.errors![0]!.message).toMatch(/this address may run 4 operations/);
    const tool = await callTool(anonymous, 'getMovie', { id: '1' });
    expect(tool.structuredContent.errors[0]).toMatchObject({ classification: 'RATE_LIMITED' });
    // The signed-in user at the same address has a quota of its own.
    expect((await post(ME, {}, bearer(token))).status).toBe(200);

    skipPast(refused.retryAfter);
    expect((await post(MOVIE)).body.data).toEqual({ movie: { title: 'The Shawshank Redemption' } });
  });

  it('failed logins are limited per account, unknown accounts alike and with the same answer, from any address', async () => {
    await start({
      TRUST_PROXY: 'loopback',
      LOGIN_FAILURES_PER_ACCOUNT: '3',
      LOGIN_FAILURE_WINDOW_SECONDS: '4',
    });
    const answers: Record<'known' | 'unknown', Answer[]> = { known: [], unknown: [] };
    // Each failure comes from another address: the per-account count does not depend on the address.
    for (let i = 0; i < 4; i += 1) {
      answers.known.push(await login('user', `wrong-${i}`, from(`203.0.113.${i + 1}`)));
      answers.unknown.push(await login('nobody-here', `wrong-${i}`, from(`198.51.100.${i + 1}`)));
    }
    for (const kind of ['known', 'unknown'] as const) {
      expect(answers[kind].slice(0, 3).map((a) => [a.status, a.body.errors?.[0]?.message])).toEqual(
        Array(3).fill([200, 'Invalid credentials']),
      );
      expectRefused(answers[kind][3]!, 4);
    }
    // Known and unknown accounts cannot be told apart by the refusal either.
    const strip = (a: Answer) => ({
      status: a.status,
      message: a.body.errors![0]!.message.replace(/\d+ s$/, ''),
    });
    expect(strip(answers.unknown[3]!)).toEqual(strip(answers.known[3]!));
    // The locked account refuses even the right password, from a fresh address, without checking it.
    expectRefused(await login('user', 'user123', from('192.0.2.77')), 4);
    // Other accounts are unaffected.
    expect((await login('mara', 'password', from('203.0.113.1'))).body.data?.login).toBeTruthy();

    skipPast(answers.known[3]!.retryAfter);
    expect((await login('user', 'user123', from('192.0.2.77'))).body.data?.login).toBeTruthy();
  });

  it('concurrent wrong logins for one account get exactly the quota of password checks; the rest are refused', async () => {
    await start({ LOGIN_FAILURES_PER_ACCOUNT: '3', LOGIN_FAILURE_WINDOW_SECONDS: '30' });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => login('admin', `guess-${i}`)));
    const counts = answers.reduce<Record<string, number>>((tally, a) => {
      const key = `${a.status} ${a.body.errors?.[0]?.extensions?.classification}`;
      return { ...tally, [key]: (tally[key] ?? 0) + 1 };
    }, {});
    expect(counts).toEqual({ '200 BAD_REQUEST': 3, '429 RATE_LIMITED': 27 });
  });

  it('failed logins are limited per address across accounts; signing in to an own account in between buys no extra guesses', async () => {
    await start({
      TRUST_PROXY: 'loopback',
      LOGIN_FAILURES_PER_ADDRESS: '3',
      LOGIN_FAILURE_WINDOW_SECONDS: '4',
    });
    const attacker = from('203.0.113.9');
    expect((await login('admin', 'guess-1', attacker)).body.errors?.[0]?.message).toBe('Invalid credentials');
    expect((await login('user', 'user123', attacker)).body.data?.login).toBeTruthy();
    expect((await login('mara', 'guess-2', attacker)).body.errors?.[0]?.message).toBe('Invalid credentials');
    expect((await login('user', 'user123', attacker)).body.data?.login).toBeTruthy();
    expect((await login('no-such-user', 'guess-3', attacker)).body.errors?.[0]?.message).toBe(
      'Invalid credentials',
    );
    // Three failures from this address: the next attempt is refused, whichever account and password.
    const refused = await login('petra', 'guess-4', attacker);
    expectRefused(refused, 4);
    expectRefused(await login('user', 'user123', attacker), 4);
    // Another address, and the accounts themselves, are unaffected.
    expect((await login('admin', 'admin123', from('203.0.113.10'))).body.data?.login).toBeTruthy();

    skipPast(refused.retryAfter);
    expect((await login('user', 'user123', attacker)).body.data?.login).toBeTruthy();
  });

  it('registrations are limited per address, taken names included, and recover after the window', async () => {
    await start({
      REGISTRATIONS_PER_ADDRESS: '2',
      REGISTRATION_WINDOW_SECONDS: '3',
    });
    const register = (username: string) =>
      post(REGISTER, { input: { username, email: `${username}@example.com`, password: 'secret123' } });
    expect((await register('limited_one')).body.data?.register).toBeTruthy();
    expect((await register('user')).body.errors?.[0]?.message).toBe('This username is already taken');
    const refused = await register('limited_two');
    expectRefused(refused, 3);
    expect(refused.body.errors![0]!.message).toMatch(/^Too many registrations from this address/);
    expect(await server!.count('users', "username = 'limited_two'")).toBe(0);
    // Signing in is not a registration.
    expect((await login('limited_one', 'secret123')).body.data?.login).toBeTruthy();

    skipPast(refused.retryAfter);
    expect((await register('limited_two')).body.data?.register).toBeTruthy();
  });

  it('RATE_LIMITS=off lets everything through, however small the limits', async () => {
    await start({
      RATE_LIMITS: 'off',
      RATE_LIMIT_USER_OPERATIONS: '1',
      RATE_LIMIT_ANON_OPERATIONS: '1',
      LOGIN_FAILURES_PER_ACCOUNT: '1',
      LOGIN_FAILURES_PER_ADDRESS: '1',
      REGISTRATIONS_PER_ADDRESS: '1',
    });
    for (let i = 0; i < 3; i += 1) {
      expect((await login('user', `wrong-${i}`)).body.errors?.[0]?.message).toBe('Invalid credentials');
      expect((await post(MOVIE)).status).toBe(200);
    }
    const tokens = [await server!.newUser(), await server!.newUser(), await server!.newUser()];
    const { token } = tokens[0]!;
    for (let i = 0; i < 3; i += 1) expect((await post(ME, {}, bearer(token))).status).toBe(200);
    const client = await mcpClient(bearer(token));
    const anonymous = await mcpClient({});
    for (let i = 0; i < 3; i += 1) {
      expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBe(false);
      expect((await callTool(anonymous, 'getMovie', { id: '1' })).isError).toBe(false);
    }
    expect((await login('user', 'user123')).body.data?.login).toBeTruthy();
  });

  it('without TRUST_PROXY the socket address counts and X-Forwarded-For is ignored', async () => {
    await start({ RATE_LIMIT_ANON_OPERATIONS: '2', RATE_LIMIT_WINDOW_SECONDS: '2' });
    expect((await post(MOVIE, {}, from('203.0.113.1'))).status).toBe(200);
    expect((await post(MOVIE, {}, from('203.0.113.2'))).status).toBe(200);
    expectRefused(await post(MOVIE, {}, from('203.0.113.3')), 2);
    const client = await mcpClient(from('203.0.113.4'));
    expect((await callTool(client, 'getMovie', { id: '1' })).structuredContent.errors[0]).toMatchObject({
      classification: 'RATE_LIMITED',
    });
  });

  it('with TRUST_PROXY=loopback the forwarded address counts, on /graphql and MCP, an IPv6 /64 or IPv4-mapped form as one address', async () => {
    await start({
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_ANON_OPERATIONS: '2',
      RATE_LIMIT_WINDOW_SECONDS: '2',
    });
    expect((await post(MOVIE, {}, from('203.0.113.1'))).status).toBe(200);
    expect((await post(MOVIE, {}, from('203.0.113.1'))).status).toBe(200);
    expectRefused(await post(MOVIE, {}, from('203.0.113.1')), 2);
    // A client cannot prepend its own choice: the rightmost untrusted hop is the address.
    expectRefused(await post(MOVIE, {}, from('198.51.100.50, 203.0.113.1')), 2);
    expect((await post(MOVIE, {}, from('203.0.113.2'))).status).toBe(200);
    // An IPv4-mapped IPv6 address is the same client as its IPv4 form.
    expect((await post(MOVIE, {}, from('::ffff:203.0.113.2'))).status).toBe(200);
    expectRefused(await post(MOVIE, {}, from('203.0.113.2')), 2);

    const first = await mcpClient(from('203.0.113.3'));
    expect((await callTool(first, 'getMovie', { id: '1' })).isError).toBe(false);
    expect((await callTool(first, 'getMovie', { id: '1' })).isError).toBe(false);
    expect((await callTool(first, 'getMovie', { id: '1' })).structuredContent.errors[0]).toMatchObject({
      classification: 'RATE_LIMITED',
    });
    const second = await mcpClient(from('203.0.113.4'));
    expect((await callTool(second, 'getMovie', { id: '1' })).isError).toBe(false);

    // Two addresses of one IPv6 /64 share a quota; another /64 has its own.
    expect((await post(MOVIE, {}, from('2001:db8:1:2::1'))).status).toBe(200);
    expect((await post(MOVIE, {}, from('2001:db8:1:2:ffff::9'))).status).toBe(200);
    expectRefused(await post(MOVIE, {}, from('2001:db8:1:2::abcd')), 2);
    expect((await post(MOVIE, {}, from('2001:db8:1:3::1'))).status).toBe(200);
  });

  it('with TRUST_PROXY as a hop count the address that many hops back counts', async () => {
    await start({
      TRUST_PROXY: '1',
      RATE_LIMIT_ANON_OPERATIONS: '1',
      RATE_LIMIT_WINDOW_SECONDS: '2',
    });
    expect((await post(MOVIE, {}, from('203.0.113.1, 198.51.100.7'))).status).toBe(200);
    // Same last hop, different spoofed first entry: the same client.
    expectRefused(await post(MOVIE, {}, from('192.0.2.1, 198.51.100.7')), 2);
    expect((await post(MOVIE, {}, from('203.0.113.1, 198.51.100.8'))).status).toBe(200);
  });
});

describe('rate-limit settings', () => {
  it('default to 600 a minute signed in, 120 per address anonymous, request points 3000 and 600, 10 login failures in 15 min, 5 registrations an hour, no trusted proxy', () => {
    const config = loadConfig({});
    expect(config.rateLimits).toEqual({
      enabled: true,
      userOperations: 600,
      anonymousOperations: 120,
      userRequests: 3000,
      anonymousRequests: 600,
      operationsWindowSeconds: 60,
      loginFailuresPerAccount: 10,
      loginFailuresPerAddress: 10,
      loginWindowSeconds: 900,
      registrationsPerAddress: 5,
      registrationWindowSeconds: 3600,
    });
    expect(config.trustProxy).toBe(false);
  });

  it.each([
    ['off', false],
    ['0', false],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.1, fd00::/8, loopback', ['10.0.0.0/8', '192.168.1.1', 'fd00::/8', 'loopback']],
    ['10.0.0.0/255.0.0.0', ['10.0.0.0/255.0.0.0']],
  ])('TRUST_PROXY=%s is read as Express trust proxy %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['true', 'all', '10.0.0.0/33', 'proxy.example.com', '999.1.1.1', '11'])(
    'TRUST_PROXY=%s stops start-up with a reason',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: /);
    },
  );

  it('refuses a limit below 1 or a RATE_LIMITS value other than on or off, listing each', () => {
    expect(() =>
      loadConfig({
        RATE_LIMITS: 'disabled',
        RATE_LIMIT_USER_OPERATIONS: '0',
        LOGIN_FAILURE_WINDOW_SECONDS: 'x',
      }),
    ).toThrow(/RATE_LIMITS: [\s\S]*RATE_LIMIT_USER_OPERATIONS: [\s\S]*LOGIN_FAILURE_WINDOW_SECONDS: /);
  });
});
