/**
 * The issue's main proof: a generated corpus of hostile requests over /graphql (POST and GET), /mcp (in
 * sessions and without) and raw HTTP, on each store. Every answer must be below 500, not HTML, free of
 * leaks (stack frames, paths, SQL, library names), never JSON-RPC -32603 nor INTERNAL_ERROR, and arrive
 * within a second; afterwards the process still answers /healthz and its heap is back near where it began.
 * Failures are printed grouped by category, so what remains to fix is visible at a glance.
 */
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';
import {
  TEST_AUDIENCE,
  TEST_ISSUER,
  TEST_JWT_SECRET,
  dialects,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';
import {
  generateHostileCorpus,
  type CorpusTokens,
  type HostileCase,
  type HttpCase,
  type RawCase,
  USER_STREAM_EVENT_ID,
} from './hostile-cases.js';

/** Requests in flight at once: enough to overlap, few enough for a shared two-core machine. */
const CONCURRENCY = 8;
/** The issue's bound on every answer. */
const ANSWER_WITHIN_MS = 1000;
/** A request not answered by then is reported as hanging (and the run goes on). */
const GIVE_UP_MS = 5000;
/**
 * Heap after GC may exceed its start by this much. Measured: about 2 to 3 MB over a full pass once the
 * bounded caches are warm (a few sessions opened by valid tokens stay until they idle out).
 */
const HEAP_MARGIN_BYTES = 24 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Node may drop a connection it cannot parse (CONNECT with no handler, an HTTP/2 preface). */
const RAW_UNANSWERED = 'closed without an answer';

interface Answer {
  status: number;
  contentType: string;
  body: string;
  ms: number;
}

interface Failure {
  category: string;
  name: string;
  problems: string[];
}

/** What counts as a leak. SQL and library names are looked for in error texts only, not in data. */
const LEAKS_ANYWHERE: Array<[string, RegExp]> = [
  ['a stack frame', /\bat (?:async )?[\w$.<>[\]]+ \(|\bat (?:file:\/\/|node:|\/)[^\s"]*:\d+:\d+/],
  ['a file path', /(?:\/work\/|\/home\/|\/usr\/lib|node_modules|file:\/\/|\b[\w-]+\.(?:ts|js|mjs|cjs):\d+)/],
  ['a stack overflow', /Maximum call stack/i],
];
const LEAKS_IN_ERRORS: Array<[string, RegExp]> = [
  [
    'SQL from an error',
    /syntax error at or near|SQLITE_|SqliteError|no such (?:table|column)|relation "|violates [\w ]*constraint|duplicate key value|invalid byte sequence|invalid input syntax|UNIQUE constraint failed|\bselect\b[\s\S]{0,80}\bfrom\b|\binsert into\b|\bupdate\b[\s\S]{0,40}\bset\b|\bdelete from\b/i,
  ],
  [
    'a library name',
    /kysely|better-sqlite3|node-postgres|\bpg\b|\bzod\b|\bajv\b|graphql-http|\bexpress\b|undici/i,
  ],
  ['a validator dump', /invalid_type|invalid_union|"expected"\s*:|instancePath|schemaPath/],
];

/** The JSON messages in a body: one JSON document, or the `data:` lines of an SSE stream. */
function messagesOf(body: string): unknown[] {
  const trimmed = body.trim();
  if (trimmed === '') return [];
  try {
    return [JSON.parse(trimmed)];
  } catch {
    const messages: unknown[] = [];
    for (const line of trimmed.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        messages.push(JSON.parse(line.slice(5)));
      } catch {
        // Not JSON: scanned as text below.
      }
    }
    return messages;
  }
}

/**
 * Whether a message classifies something as INTERNAL_ERROR (schemas that merely list the value, as a
 * tool's outputSchema does, do not count).
 */
function hasInternalError(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasInternalError);
  const record = value as Record<string, unknown>;
  if (record.classification === 'INTERNAL_ERROR') return true;
  return Object.values(record).some(hasInternalError);
}

/** Every text that describes an error: GraphQL errors, JSON-RPC errors, failed tool results. */
function errorTexts(body: string): string[] {
  const messages = messagesOf(body);
  if (messages.length === 0) return [body];
  const texts: string[] = [];
  const visit = (value: unknown) => {
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.errors)) texts.push(JSON.stringify(record.errors));
    if (record.error !== undefined) texts.push(JSON.stringify(record.error));
    const result = record.result as Record<string, unknown> | undefined;
    if (result?.isError) texts.push(JSON.stringify(result.content), JSON.stringify(result.structuredContent));
  };
  messages.forEach(visit);
  return texts;
}

/** Removes what the case itself sent, so quoting a rejected value back is not taken for a leak. */
function withoutEchoes(text: string, echoes: readonly string[] = []): string {
  let result = text;
  for (const echo of echoes) {
    if (echo.length < 2) continue;
    const escaped = JSON.stringify(echo).slice(1, -1);
    for (const form of [echo, escaped, echo.slice(0, 40), escaped.slice(0, 40)]) {
      if (form.length >= 2) result = result.split(form).join('');
    }
  }
  return result;
}

function problemsOf(testCase: HostileCase, answer: Answer | string): string[] {
  // Closing a connection that does not speak HTTP is an answer; it is listed in the summary anyway.
  if (answer === RAW_UNANSWERED) return [];
  if (typeof answer === 'string') return [answer];
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (answer.ms > ANSWER_WITHIN_MS) problems.push(`answered in ${Math.round(answer.ms)} ms`);
  if (
    /text\/html/i.test(answer.contentType) ||
    /^\s*<(?:!doctype|html)|<\/?(?:html|body|pre)>/i.test(answer.body)
  )
    problems.push('an HTML body');
  const echoes = testCase.kind === 'http' ? testCase.echoes : undefined;
  const body = withoutEchoes(answer.body, echoes);
  for (const [what, pattern] of LEAKS_ANYWHERE) {
    const match = pattern.exec(body);
    if (match) problems.push(`leaks ${what}: ${match[0].slice(0, 60)}`);
  }
  for (const text of errorTexts(answer.body)) {
    const cleaned = withoutEchoes(text, echoes);
    for (const [what, pattern] of LEAKS_IN_ERRORS) {
      const match = pattern.exec(cleaned);
      if (match) problems.push(`leaks ${what}: ${match[0].slice(0, 60)}`);
    }
  }
  if (/"code"\s*:\s*-32603\b/.test(answer.body)) problems.push('JSON-RPC -32603');
  if (messagesOf(answer.body).some(hasInternalError)) problems.push('INTERNAL_ERROR');
  return [...new Set(problems)];
}

interface Sessions {
  anonymous: string;
  user: string;
  /** The id of an event of a call stream of the user's session. */
  userStreamEventId: string;
}

/** Makes a call on a session and returns the first event id of its (resumable) response stream. */
async function callStreamEventId(url: string, sessionId: string, token: string): Promise<string> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'getMovie', arguments: { id: '1' } },
    }),
  });
  const id = /^id: (.+)$/m.exec(await response.text())?.[1];
  if (!id) throw new Error(`the call stream carried no event id (${response.status})`);
  return id;
}

async function openSession(url: string, token?: string): Promise<string> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...auth },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize failed with ${response.status}`);
  await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return id;
}

async function sendHttp(
  url: string,
  testCase: HttpCase,
  sessions: Sessions,
  userToken: string,
): Promise<Answer | string> {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(testCase.headers ?? {}).map(([name, value]) => [
      name,
      value === USER_STREAM_EVENT_ID ? sessions.userStreamEventId : value,
    ]),
  );
  if (testCase.session && headers['mcp-session-id'] === undefined) {
    headers['mcp-session-id'] = testCase.session === 'anonymous' ? sessions.anonymous : sessions.user;
    if (testCase.session === 'user' && headers.authorization === undefined)
      headers.authorization = `Bearer ${userToken}`;
  }
  const started = performance.now();
  try {
    const response = await fetch(`${url}${testCase.path}`, {
      method: testCase.method,
      headers,
      body: testCase.body,
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    const body = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body,
      ms: performance.now() - started,
    };
  } catch (error) {
    return `no answer within ${GIVE_UP_MS} ms or connection failed: ${(error as Error).message}`;
  }
}

/**
 * Writes the bytes and reads until the server closes (every well-formed raw case asks it to). A
 * half-close would make Node drop the request unanswered, so the socket stays open for writing.
 */
function sendRaw(port: number, testCase: RawCase): Promise<Answer | string> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let firstByteMs: number | undefined;
    const socket = connect(port, '127.0.0.1');
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      // Several answers may come back (pipelining): the worst status counts. A later status line follows
      // the previous body directly (no line break), so it is not anchored to a line start.
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) [A-Z]/g)].map((m) => Number(m[1]));
      if (statuses.length === 0) return resolve(RAW_UNANSWERED);
      const headerEnd = text.indexOf('\r\n\r\n');
      resolve({
        status: Math.max(...statuses),
        contentType: /^content-type:\s*(.*)$/im.exec(text)?.[1] ?? '',
        body: headerEnd >= 0 ? text.slice(headerEnd + 4) : text,
        ms: firstByteMs ?? performance.now() - started,
      });
    };
    // A connection left open after a complete answer is not a hang: what arrived is judged.
    const timer = setTimeout(() => {
      socket.destroy();
      if (chunks.length === 0) resolve(`no answer within ${GIVE_UP_MS} ms`);
      else finish();
    }, GIVE_UP_MS);
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ??= performance.now() - started;
      chunks.push(chunk);
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(typeof testCase.bytes === 'string' ? Buffer.from(testCase.bytes, 'latin1') : testCase.bytes);
  });
}

/** A fixed shuffle (mulberry32), so heavy cases of one family do not all queue behind each other. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function corpusTokens(userToken: string): Promise<CorpusTokens> {
  const key = new TextEncoder().encode(TEST_JWT_SECRET);
  const sign = (
    claims: Record<string, unknown>,
    options: { audience?: string; exp?: string; secret?: Uint8Array } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(TEST_ISSUER)
      .setAudience(options.audience ?? TEST_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '1h')
      .sign(options.secret ?? key);
  return {
    user: userToken,
    numericSub: await sign({ sub: 2, role: 'USER' }),
    objectSub: await sign({ sub: { id: 1 }, role: 'USER' }),
    emptySub: await sign({ sub: '', role: 'USER' }),
    unknownSub: await sign({ sub: 'nobody-at-all', role: 'ADMIN' }),
    noRole: await sign({ sub: 'user' }),
    oddRole: await sign({ sub: 'user', role: { admin: true } }),
    expired: await sign({ sub: 'user', role: 'USER' }, { exp: Math.floor(Date.now() / 1000) - 3600 + 's' }),
    otherAudience: await sign({ sub: 'user', role: 'USER' }, { audience: 'someone-else' }),
    otherSecret: await sign(
      { sub: 'user', role: 'ADMIN' },
      { secret: new TextEncoder().encode('another-secret-that-is-long-enough-0123456789') },
    ),
    algNone: new UnsecuredJWT({ sub: 'admin', role: 'ADMIN' })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_AUDIENCE)
      .setExpirationTime('1h')
      .encode(),
  };
}

describe.each(dialects)('the hostile corpus on %s', (dialect) => {
  let server: TestServer;
  let cases: HostileCase[] = [];
  const failures: Failure[] = [];
  const counts = new Map<string, number>();
  let heapBefore = 0;
  let heapAfter = 0;
  let slowest = 0;
  const timings: Array<[number, string]> = [];
  const unanswered: string[] = [];

  beforeAll(async () => {
    // Rate limits (another part of this issue) would answer most of the corpus with 429 and keep it
    // from reaching the code under test; the corpus switches them off. Unknown settings are ignored.
    server = await startTestServer(dialect, { env: { RATE_LIMITS: 'off', MCP_SCHEMA_TOOLS: 'read' } });
    const userToken = await server.login('user', 'user123');
    const tokens = await corpusTokens(userToken);
    const user = await openSession(server.url, userToken);
    const sessions: Sessions = {
      anonymous: await openSession(server.url),
      user,
      userStreamEventId: await callStreamEventId(server.url, user, userToken),
    };
    cases = shuffled(generateHostileCorpus(tokens), 6);
    for (const testCase of cases) counts.set(testCase.category, (counts.get(testCase.category) ?? 0) + 1);

    const run = async (testCase: HostileCase) => {
      const answer =
        testCase.kind === 'raw'
          ? await sendRaw(server.port, testCase)
          : await sendHttp(server.url, testCase, sessions, userToken);
      if (answer === RAW_UNANSWERED) unanswered.push(testCase.name);
      if (typeof answer !== 'string') {
        slowest = Math.max(slowest, answer.ms);
        timings.push([answer.ms, `${testCase.category} | ${testCase.name.slice(0, 60)}`]);
      }
      const problems = problemsOf(testCase, answer);
      if (problems.length > 0) failures.push({ category: testCase.category, name: testCase.name, problems });
    };
    // A warm-up pass over every third case fills the bounded caches (parse cache, JIT, pools) first, so
    // the heap comparison around the full pass measures growth, not first-use allocation.
    await inPool(
      cases.filter((_, i) => i % 3 === 0),
      CONCURRENCY,
      run,
    );
    gc();
    heapBefore = process.memoryUsage().heapUsed;
    failures.length = 0;
    timings.length = 0;
    unanswered.length = 0;
    slowest = 0;
    await inPool(cases, CONCURRENCY, run);
    gc();
    heapAfter = process.memoryUsage().heapUsed;

    const byCategory = new Map<string, Failure[]>();
    for (const failure of failures) {
      byCategory.set(failure.category, [...(byCategory.get(failure.category) ?? []), failure]);
    }
    const lines = [
      `hostile corpus on ${dialect}: ${cases.length} requests, ${failures.length} failing, slowest ${Math.round(slowest)} ms, heap ${((heapAfter - heapBefore) / 1048576).toFixed(1)} MB over its start`,
    ];
    for (const [category, list] of byCategory) {
      lines.push(`  ${category}: ${list.length} of ${counts.get(category)} failing`);
      for (const failure of list.slice(0, 12)) {
        lines.push(`    - ${failure.name.slice(0, 90)}: ${failure.problems.join('; ')}`);
      }
      if (list.length > 12) lines.push(`    … and ${list.length - 12} more`);
    }
    console.log(lines.join('\n'));
    timings.sort((a, b) => b[0] - a[0]);
    const slowestFive = timings.slice(0, 5).map(([ms, name]) => `  ${Math.round(ms)} ms ${name}`);
    console.log(`raw cases the server closed without an answer: ${unanswered.join(', ') || 'none'}`);
    console.log(`slowest answers on ${dialect}:\n${slowestFive.join('\n')}`);
  }, 240_000);
  afterAll(() => server?.stop());

  it('holds at least 800 requests over /graphql (POST and GET), /mcp and raw HTTP', () => {
    expect(cases.length).toBeGreaterThanOrEqual(800);
    const kinds = new Set(
      cases.map((c) =>
        c.kind === 'raw' ? 'raw' : `${c.method === 'GET' ? 'GET' : 'POST'} ${c.path.split('?')[0]}`,
      ),
    );
    expect([...kinds]).toEqual(expect.arrayContaining(['raw', 'POST /graphql', 'GET /graphql', 'POST /mcp']));
  });

  it('every answer is below 500, not HTML, leaks nothing, is never -32603 or INTERNAL_ERROR, within 1 s', () => {
    const summary = failures.map((f) => `${f.category} | ${f.name.slice(0, 80)}: ${f.problems.join('; ')}`);
    expect(summary).toEqual([]);
  });

  it('the process is alive afterwards and its heap is back near where it began', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(heapAfter - heapBefore).toBeLessThan(HEAP_MARGIN_BYTES);
  });
});
