/**
 * The /graphql guards without a server: their order is the endpoint's contract (drain gate, Host, body,
 * bearer token, with GraphiQL's page after the header-only guards), and each guard's refusals come from a
 * table of facts.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createHostCheck } from '../../src/http/allowed-hosts.js';
import type { BearerOutcome } from '../../src/http/authenticate.js';
import { GRAPHIQL_AFTER, graphqlGuards, type GraphQLFacts } from '../../src/http/graphql-guards.js';
import { runGuards } from '../../src/http/guard.js';
import { loadConfig } from '../../src/config.js';
import type { RefusalCode } from '../../src/transport-refusals.js';
import type { Identity } from '../../src/auth/identity.js';

const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', JWT_SECRET: 'x'.repeat(48) });
const guards = graphqlGuards(createHostCheck(config.mcp, config.host));
const request = (host = 'localhost:4000') => ({ headers: { host } }) as unknown as IncomingMessage;
const byName = (name: string) => guards.find((guard) => guard.name === name)!;
const identity = { subject: '1' } as unknown as Identity;

describe('the /graphql guards', () => {
  it('run in the documented order, GraphiQL after the header-only ones', () => {
    expect(guards.map((guard) => [guard.name, guard.needs])).toEqual([
      ['draining', 'draining'],
      ['host', undefined],
      ['body', 'body'],
      ['bearer', 'bearer'],
    ]);
    expect(GRAPHIQL_AFTER).toBe('host');
  });

  const table: [
    guard: string,
    facts: Partial<GraphQLFacts>,
    host: string,
    refusal: RefusalCode | undefined,
  ][] = [
    ['draining', { draining: true }, 'localhost', 'graphql.draining'],
    ['draining', { draining: false }, 'localhost', undefined],
    ['host', {}, 'evil.example', 'graphql.host-not-allowed'],
    ['host', {}, 'localhost:4000', undefined],
    ['host', {}, '127.0.0.1', undefined],
    ['body', { body: { text: '{}' } }, 'localhost', undefined],
    ['body', { body: { text: null } }, 'localhost', undefined],
    [
      'body',
      { body: { error: { type: 'entity.too.large', status: 413 } } },
      'localhost',
      'graphql.body-too-large',
    ],
    ['body', { body: { error: { type: 'encoding.mismatch' } } }, 'localhost', 'graphql.encoding-mismatch'],
    [
      'body',
      { body: { error: { type: 'encoding.unsupported' } } },
      'localhost',
      'graphql.encoding-unsupported',
    ],
    [
      'body',
      { body: { error: { type: 'charset.unsupported' } } },
      'localhost',
      'graphql.charset-unsupported',
    ],
    ['body', { body: { error: { type: 'request.aborted' } } }, 'localhost', 'graphql.request-aborted'],
    [
      'body',
      { body: { error: { type: 'request.size.invalid', status: 400 } } },
      'localhost',
      'graphql.request-unprocessable',
    ],
    ['bearer', { bearer: { kind: 'absent' } }, 'localhost', undefined],
    ['bearer', { bearer: { kind: 'verified', identity } }, 'localhost', undefined],
    [
      'bearer',
      { bearer: { kind: 'invalid', reason: 'The token has expired' } },
      'localhost',
      'graphql.token-invalid',
    ],
  ];
  it.each(table)('%s with %j from Host %s refuses with %s', (name, facts, host, refusal) => {
    expect(byName(name).check(request(host), facts)?.code).toBe(refusal);
  });

  it('the invalid token refusal names the reason in its message and challenge', () => {
    const refusal = byName('bearer').check(request(), {
      bearer: { kind: 'invalid', reason: 'The token has expired' },
    });
    expect(refusal).toMatchObject({
      status: 401,
      message: 'The token has expired',
      headers: {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The token has expired"',
      },
    });
  });

  it('produce each fact only when a guard needs it: a foreign Host is refused before the body is read', async () => {
    const produced: string[] = [];
    const produce = {
      draining: () => (produced.push('draining'), false),
      body: () => (produced.push('body'), { text: '{}' }),
      bearer: (): BearerOutcome => (produced.push('bearer'), { kind: 'absent' }),
    };
    const res = {} as never;
    expect((await runGuards(guards, produce, request('evil.example'), res, {}))?.code).toBe(
      'graphql.host-not-allowed',
    );
    expect(produced).toEqual(['draining']);
    produced.length = 0;
    const facts: Partial<GraphQLFacts> = { draining: false };
    expect(await runGuards(guards, produce, request(), res, facts)).toBeUndefined();
    expect(produced).toEqual(['body', 'bearer']);
    expect(facts).toEqual({ draining: false, body: { text: '{}' }, bearer: { kind: 'absent' } });
  });
});
