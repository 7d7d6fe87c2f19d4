/**
 * OpenTelemetry traces through the front door: the server exports OTLP/HTTP (JSON) to a real receiver on
 * port 0, and the spans a tool call or a /graphql request produced are checked for their tree (HTTP →
 * tool → GraphQL → database, under the caller's traceparent), names, attributes and outcome classes, and
 * the raw payload for anything secret.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModernClient } from '../helpers/mcp-modern.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** A W3C traceparent naming a sampled remote parent, as a caller's tracing would send it. */
function remoteParent() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, headers: { traceparent: `00-${traceId}-${spanId}-01` } };
}

/** Every attribute key a span of ours may carry: anything else (a header, an argument) fails the test. */
const ALLOWED_ATTRIBUTES = new Set([
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'url.path',
  'url.scheme',
  'network.protocol.version',
  'network.protocol.name',
  'network.transport',
  'error.type',
  'mcp.method.name',
  'mcp.protocol.version',
  'jsonrpc.request.id',
  'gen_ai.operation.name',
  'gen_ai.tool.name',
  'graphql.operation.type',
  'graphql.operation.name',
  'moviedb.outcome',
  'db.system.name',
  'db.system',
  'db.operation.name',
  'db.collection.name',
]);

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);

function only(spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(predicate);
  expect(found.map((s) => s.name)).toHaveLength(1);
  return found[0]!;
}

/**
 * A child starts no earlier and ends no later than its parent, give or take the few milliseconds by
 * which the SDK's clock may differ from span to span: it anchors each span on Date.now() (millisecond
 * resolution, and a wall clock that time synchronisation may nudge between two spans).
 */
function expectWithin(child: ReceivedSpan, parent: ReceivedSpan) {
  const slack = 5_000_000n;
  const what = `${child.name} within ${parent.name}`;
  expect(BigInt(child.startTimeUnixNano) + slack, what).toBeGreaterThanOrEqual(
    BigInt(parent.startTimeUnixNano),
  );
  expect(BigInt(child.endTimeUnixNano), what).toBeLessThanOrEqual(BigInt(parent.endTimeUnixNano) + slack);
  expect(BigInt(child.endTimeUnixNano), `${child.name} takes time`).toBeGreaterThan(
    BigInt(child.startTimeUnixNano),
  );
}

describe.each(dialects)('traces (%s)', (dialect) => {
  let receiver: OtlpReceiver;
  let server: TestServer;
  const system = dialect === 'postgres' ? 'postgresql' : 'sqlite';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startTestServer(dialect, {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'moviedb-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    });
  });
  afterAll(async () => {
    // A server that failed to start leaves nothing to stop; its own error is the one to read.
    await server?.stop();
    await receiver?.close();
  });

  /**
   * The spans of one trace, once a span of each name has arrived together with every ancestor up to the
   * caller's remote parent (a parent ends after its children, so it is exported with or after them).
   */
  const traceOf = async (parent: { traceId: string; spanId: string }, ...names: string[]) => {
    const linked = (trace: ReceivedSpan[], span: ReceivedSpan): boolean =>
      span.parentSpanId === parent.spanId ||
      trace.some((s) => s.spanId === span.parentSpanId && linked(trace, s));
    const spans = await receiver.waitFor((all) => {
      const trace = all.filter((s) => s.traceId === parent.traceId);
      return names.every((name) => trace.some((s) => s.name === name && linked(trace, s)));
    });
    return spans.filter((s) => s.traceId === parent.traceId);
  };

  /** The HTTP span of the request that carried a tools/call, and the tool span under it. */
  const toolCallIn = (spans: ReceivedSpan[], tool: string) => {
    const toolSpan = only(spans, (s) => s.name === `tools/call ${tool}`);
    const http = only(spans, (s) => s.spanId === toolSpan.parentSpanId);
    return { http, tool: toolSpan };
  };

  it('a tool call is one trace under the caller: POST /mcp → tools/call → query → SQL, timed and named', async () => {
    const token = await server.login('user', 'user123');
    const parent = remoteParent();
    const client = await connectClient(server.url, token, { headers: parent.headers });
    const result = await callTool(client, 'searchMovies', { filter: { titleContains: 'Godfather' } });
    expect(result.isError).toBe(false);
    await client.close();
    const spans = await traceOf(parent, 'tools/call searchMovies', 'SELECT users');

    const { http, tool } = toolCallIn(spans, 'searchMovies');
    expect(http).toMatchObject({ name: 'POST /mcp', kind: SERVER, parentSpanId: parent.spanId, status: 0 });
    expect(http.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/mcp',
      'url.path': '/mcp',
      'url.scheme': 'http',
      'network.protocol.version': '1.1',
      'http.response.status_code': 200,
    });
    expect(http.resource).toMatchObject({ 'service.name': 'moviedb-under-test' });
    expect(tool).toMatchObject({ kind: SERVER, status: 0 });
    expect(tool.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2025-11-25',
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'searchMovies',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'moviedb.outcome': 'OK',
    });
    expectWithin(tool, http);

    const operation = only(childrenOf(spans, tool), () => true);
    expect(operation).toMatchObject({ name: 'query', kind: SERVER, status: 0 });
    expect(operation.attributes).toEqual({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'SearchMovies',
      'moviedb.outcome': 'OK',
    });
    expectWithin(operation, tool);

    const queries = childrenOf(spans, operation);
    expect(queries.length).toBeGreaterThan(0);
    const movies = queries.find((s) => s.name === 'SELECT movies');
    expect(movies).toBeDefined();
    expect(movies).toMatchObject({ kind: CLIENT, status: 0 });
    expect(movies!.attributes).toEqual({
      'db.system.name': system,
      'db.system': system,
      'db.operation.name': 'SELECT',
      'db.collection.name': 'movies',
    });
    for (const query of queries) expectWithin(query, operation);
    // The bearer check reads the account before any tool runs, as a statement of a request itself, and
    // only once: the replica remembers it until the store reports a change (src/auth/account-check.ts).
    const lookups = spans.filter((s) => s.name === 'SELECT users');
    expect(lookups).toHaveLength(1);
    expect(only(spans, (s) => s.spanId === lookups[0]!.parentSpanId).name).toBe('POST /mcp');
    expect(childrenOf(spans, http).map((s) => s.name)).not.toContain('SELECT users');
  });

  it('a failed call says its outcome class on the tool and operation spans: NOT_FOUND, UNAUTHORIZED', async () => {
    const parent = remoteParent();
    const client = await connectClient(server.url, undefined, { headers: parent.headers });
    expect((await callTool(client, 'getMovie', { id: '999' })).isError).toBe(true);
    expect((await callTool(client, 'addToWatchlist', { subject: { movieId: '1' } })).isError).toBe(true);
    await client.close();
    const spans = await traceOf(parent, 'tools/call getMovie', 'tools/call addToWatchlist');

    for (const [name, outcome] of [
      ['getMovie', 'NOT_FOUND'],
      ['addToWatchlist', 'UNAUTHORIZED'],
    ] as const) {
      const { tool } = toolCallIn(spans, name);
      expect(tool.status).toBe(ERROR);
      expect(tool.attributes).toMatchObject({ 'moviedb.outcome': outcome, 'error.type': 'tool_error' });
      const operation = only(childrenOf(spans, tool), () => true);
      expect(operation.status).toBe(ERROR);
      expect(operation.attributes).toMatchObject({ 'moviedb.outcome': outcome, 'error.type': outcome });
    }
  });

  it('a 2026-07-28 call names its revision; a call without a traceparent starts a trace of its own', async () => {
    const client = await connectModernClient(server.url);
    await client.callTool({ name: 'getMovie', arguments: { id: '2' } });
    await client.close();
    const spans = await receiver.waitFor((all) =>
      all.some(
        (s) => s.name === 'tools/call getMovie' && s.attributes['mcp.protocol.version'] === '2026-07-28',
      ),
    );
    const tool = only(
      spans,
      (s) => s.name === 'tools/call getMovie' && s.attributes['mcp.protocol.version'] === '2026-07-28',
    );
    await receiver.waitFor((all) => all.some((s) => s.spanId === tool.parentSpanId));
    const http = only(receiver.spans(), (s) => s.spanId === tool.parentSpanId);
    expect(http).toMatchObject({ name: 'POST /mcp', parentSpanId: '' });
  });

  it('a /graphql request: POST /graphql → query → SQL; a GET keeps its query string out', async () => {
    const parent = remoteParent();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...parent.headers },
      body: JSON.stringify({
        query: 'query MovieWithDirectors($id: ID!) { movie(id: $id) { title directors { name } } }',
        variables: { id: '1' },
      }),
    });
    expect(response.status).toBe(200);
    const spans = await traceOf(parent, 'query');
    const http = only(spans, (s) => s.parentSpanId === parent.spanId);
    expect(http).toMatchObject({ name: 'POST /graphql', kind: SERVER });
    expect(http.attributes).toMatchObject({ 'http.route': '/graphql', 'http.response.status_code': 200 });
    const operation = only(childrenOf(spans, http), (s) => s.name === 'query');
    expect(operation.attributes).toEqual({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'MovieWithDirectors',
      'moviedb.outcome': 'OK',
    });
    const statements = childrenOf(spans, operation).map((s) => s.name);
    expect(statements).toEqual(expect.arrayContaining(['SELECT movies', 'SELECT movie_directors']));

    const get = remoteParent();
    const url = `${server.url}/graphql?query=${encodeURIComponent('{ movie(id: "999") { title } }')}`;
    expect((await fetch(url, { headers: { accept: 'application/json', ...get.headers } })).status).toBe(200);
    const getSpans = await traceOf(get, 'query');
    const getHttp = only(getSpans, (s) => s.parentSpanId === get.spanId);
    expect(getHttp).toMatchObject({ name: 'GET /graphql', status: 0 });
    expect(getHttp.attributes['url.path']).toBe('/graphql');
    const failed = only(childrenOf(getSpans, getHttp), (s) => s.name === 'query');
    expect(failed).toMatchObject({ status: ERROR });
    expect(failed.attributes).toMatchObject({ 'moviedb.outcome': 'NOT_FOUND', 'error.type': 'NOT_FOUND' });
  });

  it('a value the client chooses is cut at 256 characters (here an operation name of 1,000)', async () => {
    const parent = remoteParent();
    const name = `Long${'o'.repeat(996)}`;
    await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...parent.headers },
      body: JSON.stringify({ query: `query ${name} { movie(id: "1") { title } }` }),
    });
    const operation = only(await traceOf(parent, 'query'), (s) => s.name === 'query');
    expect(operation.attributes['graphql.operation.name']).toBe(name.slice(0, 256));
  });

  it('a body that arrives after the headers still runs inside its request span', async () => {
    const parent = remoteParent();
    const body = JSON.stringify({ query: 'query Late { movie(id: "3") { title } }' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          // The server's 100 Continue says it has the headers and is handling the request: the body
          // sent only then is a later packet.
          expect: '100-continue',
          ...parent.headers,
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // A later packet: its data and end events come from the socket, not from the request handler.
      req.on('continue', () => req.end(body));
      req.flushHeaders();
    });
    expect(status).toBe(200);
    const spans = await traceOf(parent, 'query');
    const http = only(spans, (s) => s.parentSpanId === parent.spanId);
    const operation = only(childrenOf(spans, http), (s) => s.name === 'query');
    expect(operation.attributes['graphql.operation.name']).toBe('Late');
    expect(childrenOf(spans, operation).map((s) => s.name)).toContain('SELECT movies');
  });

  it('a malformed traceparent starts a trace of its own; a malformed tracestate keeps a good parent', async () => {
    const good = remoteParent();
    const id = randomBytes(16).toString('hex');
    const headers: [string, Record<string, string>][] = [
      ['Garbage', { traceparent: 'not a traceparent' }],
      ['ZeroIds', { traceparent: `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01` }],
      ['VersionFf', { traceparent: `ff-${id}-${id.slice(0, 16)}-01` }],
      ['Uppercase', { traceparent: `00-${id.toUpperCase()}-${id.slice(0, 16)}-01` }],
      ['Long', { traceparent: `00-${id}-${id.slice(0, 16)}-01-${'x'.repeat(8000)}` }],
      ['Twice', { traceparent: `${good.headers.traceparent}, ${good.headers.traceparent}` }],
      ['BadState', { ...good.headers, tracestate: `=,${'a'.repeat(600)}=b,,,;;` }],
    ];
    for (const [name, header] of headers) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...header },
        body: JSON.stringify({ query: `query ${name} { movie(id: "1") { title } }` }),
      });
      expect(response.status, name).toBe(200);
    }
    const spans = await receiver.waitFor((all) =>
      headers.every(([name]) => {
        const operation = all.find((s) => s.attributes['graphql.operation.name'] === name);
        return operation !== undefined && all.some((s) => s.spanId === operation.parentSpanId);
      }),
    );
    for (const [name] of headers) {
      const operation = only(spans, (s) => s.attributes['graphql.operation.name'] === name);
      const http = only(spans, (s) => s.spanId === operation.parentSpanId);
      expect(http.traceId, name).toMatch(/^[0-9a-f]{32}$/);
      expect(http.traceId, name).not.toBe('0'.repeat(32));
      if (name === 'BadState')
        expect(http).toMatchObject({ traceId: good.traceId, parentSpanId: good.spanId });
      else expect(http.parentSpanId, name).toBe('');
    }
  });

  it('exports no argument, variable, result, query string, token, password or e-mail; only known attributes', async () => {
    const secret = randomBytes(6).toString('hex');
    const username = `traced_${secret}`;
    const password = `pw-${secret}-never-exported`;
    const email = `${username}@mail-${secret}.example`;
    const register = remoteParent();
    const registered = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...register.headers },
      body: JSON.stringify({
        query: 'mutation Register($input: RegisterInput!) { register(input: $input) { token } }',
        variables: { input: { username, email, password } },
      }),
    });
    const token = ((await registered.json()) as { data: { register: { token: string } } }).data.register
      .token;

    const call = remoteParent();
    const client = await connectClient(server.url, token, { headers: call.headers });
    const argument = `title-${secret}-argument`;
    await callTool(client, 'searchMovies', { filter: { titleContains: argument } });
    const movie = await callTool<{ title: string }>(client, 'getMovie', { id: '1' });
    await client.close();

    const get = remoteParent();
    const variable = `variable-${secret}-in-query-string`;
    const query = 'query Find($t: String) { movies(filter: { titleContains: $t }) { totalElements } }';
    await fetch(
      `${server.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ t: variable }))}`,
      { headers: { accept: 'application/json', ...get.headers } },
    );
    await traceOf(register, 'mutation');
    await traceOf(call, 'tools/call searchMovies', 'tools/call getMovie');
    await traceOf(get, 'query');

    const exported = Buffer.concat(receiver.requests.map((r) => r.body)).toString('utf8');
    expect(exported).toContain('tools/call searchMovies');
    for (const value of [
      token,
      token.split('.')[2]!,
      password,
      email,
      username,
      argument,
      variable,
      movie.structuredContent.data.title,
      'Bearer',
      'authorization',
      'variables=',
    ]) {
      expect(exported, `the export contains ${value}`).not.toContain(value);
    }
    const keys = new Set(receiver.spans().flatMap((s) => Object.keys(s.attributes)));
    expect([...keys].filter((key) => !ALLOWED_ATTRIBUTES.has(key))).toEqual([]);
  });
});
