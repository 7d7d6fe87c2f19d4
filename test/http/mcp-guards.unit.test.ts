/**
 * The /mcp guards without a server: their order is the endpoint's contract (Host and Origin, method,
 * protocol revision, bearer token, body, JSON-RPC, scope), and each guard's refusals, from the transport
 * refusals' registry, come from a table of requests and facts.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../src/auth/identity.js';
import { loadConfig } from '../../src/config.js';
import { runGuards } from '../../src/http/guard.js';
import { MCP_GUARD_ORDER, mcpGuards, type McpFacts } from '../../src/http/mcp-guards.js';
import { parseJsonRpcBody } from '../../src/http/parse-json-rpc-body.js';
import type { OperationCatalogue } from '../../src/operations/operation-catalogue.js';
import type { RefusalCode } from '../../src/transport-refusals.js';

const catalogue = {
  current: () => ({ byName: new Map([['addReview', { requiredScopes: ['reviews:write'] }]]) }),
} as unknown as OperationCatalogue;
const guardsFor = (env: Record<string, string> = {}) => {
  const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', JWT_SECRET: 'x'.repeat(48), ...env });
  return mcpGuards({
    mcp: config.mcp,
    listenHost: config.host,
    catalogue,
    metadataUrl: () => 'http://localhost/.well-known/oauth-protected-resource/mcp',
  }).list;
};
const sessions = guardsFor();
const stateless = guardsFor({ MCP_MODE: 'stateless' });
const required = guardsFor({ MCP_AUTH: 'required' });
const request = (headers: Record<string, string> = {}, method = 'POST') =>
  ({ method, headers: { host: 'localhost:4000', ...headers } }) as unknown as IncomingMessage;
const reader = { subject: '1', scopes: ['movies:read'] } as unknown as Identity;
const writer = { subject: '2', scopes: ['movies:read', 'reviews:write'] } as unknown as Identity;
const parsed = (text: string, version?: string) => parseJsonRpcBody(text, true, version, 32);
const call = (name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name } });

describe('the /mcp guards', () => {
  it('run in the documented order, each producing the fact it judges', () => {
    expect(sessions.map((guard) => guard.name)).toEqual([...MCP_GUARD_ORDER]);
    expect(sessions.map((guard) => guard.needs)).toEqual([
      undefined,
      undefined,
      undefined,
      'bearer',
      'body',
      'parsed',
      'parsed',
    ]);
  });

  type Row = [
    guard: string,
    list: typeof sessions,
    req: IncomingMessage,
    facts: Partial<McpFacts>,
    refusal: RefusalCode | undefined,
  ];
  const table: Row[] = [
    ['host-and-origin', sessions, request(), {}, undefined],
    ['host-and-origin', sessions, request({ host: 'evil.example' }), {}, 'mcp.host-not-allowed'],
    ['host-and-origin', sessions, request({ origin: 'not a url' }), {}, 'mcp.origin-malformed'],
    ['host-and-origin', sessions, request({ origin: 'https://evil.example' }), {}, 'mcp.origin-not-allowed'],
    ['host-and-origin', sessions, request({ origin: 'http://localhost:1234' }), {}, undefined],
    ['method', sessions, request({}, 'GET'), {}, undefined],
    ['method', sessions, request({}, 'DELETE'), {}, undefined],
    ['method', sessions, request({}, 'PUT'), {}, 'mcp.method-not-allowed'],
    ['method', stateless, request({}, 'GET'), {}, 'mcp.method-not-allowed'],
    ['method', stateless, request(), {}, undefined],
    ['protocol-revision', sessions, request({ 'mcp-protocol-version': '2025-11-25' }, 'GET'), {}, undefined],
    [
      'protocol-revision',
      sessions,
      request({ 'mcp-protocol-version': '1999-01-01' }, 'GET'),
      {},
      'mcp.protocol-version-unsupported',
    ],
    // A POST's unsupported revision is the JSON-RPC guard's to judge (it may be a 2026-07-28 request).
    ['protocol-revision', sessions, request({ 'mcp-protocol-version': '1999-01-01' }), {}, undefined],
    ['bearer', sessions, request(), { bearer: { kind: 'absent' } }, undefined],
    ['bearer', required, request(), { bearer: { kind: 'absent' } }, 'mcp.token-required'],
    ['bearer', sessions, request(), { bearer: { kind: 'verified', identity: reader } }, undefined],
    [
      'bearer',
      sessions,
      request(),
      { bearer: { kind: 'invalid', reason: 'The token has expired' } },
      'mcp.token-invalid',
    ],
    ['body', sessions, request(), { body: { text: '{}' } }, undefined],
    ['body', sessions, request(), { body: { text: null } }, undefined],
    ['body', sessions, request(), { body: { error: { type: 'entity.too.large' } } }, 'mcp.body-too-large'],
    [
      'body',
      sessions,
      request(),
      { body: { error: { type: 'encoding.mismatch' } } },
      'mcp.encoding-mismatch',
    ],
    [
      'body',
      sessions,
      request(),
      { body: { error: { type: 'encoding.unsupported' } } },
      'mcp.encoding-unsupported',
    ],
    [
      'body',
      sessions,
      request(),
      { body: { error: { type: 'charset.unsupported' } } },
      'mcp.charset-unsupported',
    ],
    ['body', sessions, request(), { body: { error: { type: 'request.aborted' } } }, 'mcp.request-aborted'],
    [
      'body',
      sessions,
      request(),
      { body: { error: { type: 'entity.verify.failed' } } },
      'mcp.body-unreadable',
    ],
    ['json-rpc', sessions, request(), { parsed: undefined }, undefined],
    ['json-rpc', sessions, request(), { parsed: parsed(call('getMovie')) }, undefined],
    ['json-rpc', sessions, request(), { parsed: parsed('{"jsonrpc":') }, 'mcp.parse-error'],
    ['json-rpc', sessions, request(), { parsed: parsed('[]') }, 'mcp.batch'],
    ['json-rpc', sessions, request(), { parsed: parsed('42') }, 'mcp.not-a-message'],
    [
      'json-rpc',
      sessions,
      request(),
      { parsed: parseJsonRpcBody('{}', false, undefined, 32) },
      'mcp.unsupported-media-type',
    ],
    [
      'json-rpc',
      sessions,
      request(),
      { parsed: parsed(call('getMovie'), '1999-01-01') },
      'mcp.protocol-version-unsupported',
    ],
    [
      'json-rpc',
      sessions,
      request(),
      { parsed: parsed(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: 5 })) },
      'mcp.invalid-params',
    ],
    [
      'json-rpc',
      sessions,
      request(),
      {
        parsed: parsed(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'x',
            params: { a: JSON.parse('['.repeat(50) + ']'.repeat(50)) as unknown },
          }),
        ),
      },
      'mcp.nested-too-deep',
    ],
    ['scope', sessions, request(), { parsed: parsed(call('addReview')) }, undefined],
    [
      'scope',
      sessions,
      request(),
      { bearer: { kind: 'verified', identity: writer }, parsed: parsed(call('addReview')) },
      undefined,
    ],
    [
      'scope',
      sessions,
      request(),
      { bearer: { kind: 'verified', identity: reader }, parsed: parsed(call('getMovie')) },
      undefined,
    ],
    [
      'scope',
      sessions,
      request(),
      { bearer: { kind: 'verified', identity: reader }, parsed: parsed(call('addReview')) },
      'mcp.insufficient-scope',
    ],
  ];
  it.each(table)('%s refuses the table row with its refusal', (name, list, req, facts, refusal) => {
    expect(list.find((guard) => guard.name === name)!.check(req, facts)?.code).toBe(refusal);
  });

  it('fills the refusals from the request: Allow, the challenge, the scope reply', () => {
    const byName = (name: string) => sessions.find((guard) => guard.name === name)!;
    expect(byName('method').check(request({}, 'PUT'), {})).toMatchObject({
      status: 405,
      jsonRpcCode: -32000,
      message: 'Method PUT is not allowed on /mcp',
      headers: { Allow: 'GET, POST, DELETE' },
    });
    expect(
      byName('bearer').check(request(), { bearer: { kind: 'invalid', reason: 'The token has expired' } }),
    ).toMatchObject({
      status: 401,
      message: 'Unauthorized: The token has expired',
      headers: {
        'WWW-Authenticate':
          'Bearer error="invalid_token", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"',
      },
    });
    expect(
      byName('scope').check(request(), {
        bearer: { kind: 'verified', identity: reader },
        parsed: parsed(call('addReview')),
      }),
    ).toMatchObject({ status: 403, jsonRpcCode: -32001, id: 7, data: { requiredScopes: ['reviews:write'] } });
  });

  it('produce each fact only when a guard needs it: a foreign Host is refused before the token or body', async () => {
    const produced: string[] = [];
    const produce = {
      bearer: () => (produced.push('bearer'), { kind: 'absent' as const }),
      body: () => (produced.push('body'), { text: '{}' }),
      parsed: () => (produced.push('parsed'), undefined),
    };
    const facts: Partial<McpFacts> = {};
    const refusal = await runGuards(
      sessions,
      produce,
      request({ host: 'evil.example' }),
      null as never,
      facts,
    );
    expect(refusal?.code).toBe('mcp.host-not-allowed');
    expect(produced).toEqual([]);
    await runGuards(sessions, produce, request(), null as never, {});
    expect(produced).toEqual(['bearer', 'body', 'parsed']);
  });
});
