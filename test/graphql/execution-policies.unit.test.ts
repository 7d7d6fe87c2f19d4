/**
 * The executor's policies as data (envelop's plugin shape): the list is in the documented order, the
 * composition runs the first policy outermost, and a policy that answers stops the call there with a
 * report naming it. And the document reading the authorization policy and the key check rely on.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, type Identity } from '../../src/auth/identity.js';
import { createOperationAccess } from '../../src/graphql/operation-access.js';
import { EXECUTION_POLICIES } from '../../src/graphql/policies/execution-policies.js';
import {
  answeredBy,
  composePolicies,
  type Execute,
  type ExecutionPolicy,
  type OperationCall,
} from '../../src/graphql/policies/execution-policy.js';
import { buildSchema } from '../../src/graphql/schema.js';

const schema = buildSchema();
const access = createOperationAccess(schema);

describe('the executor’s policies', () => {
  it('run in the documented order, the key check first and the store policy around execution last', () => {
    expect(EXECUTION_POLICIES.map((policy) => policy.name)).toEqual([
      'idempotency-key-check',
      'rate-limit',
      'authorization',
      'result-cache',
      'idempotency',
      'write-invalidation',
      'masking',
      'store-policy',
    ]);
  });

  it('compose first policy outermost; one that answers stops the call and names itself in the report', async () => {
    const seen: string[] = [];
    const recording = (name: string, answers = false): ExecutionPolicy => ({
      name,
      create: () => (next) => async (call) => {
        seen.push(`${name} in`);
        if (answers) return answeredBy(name, { data: { answeredBy: name } });
        const executed = await next(call);
        seen.push(`${name} out`);
        return executed;
      },
    });
    const execute: Execute = async () => {
      seen.push('execute');
      return {
        result: { data: {} },
        report: { attempts: 1, commit: 'none', replayed: false, answeredBy: 'execution' },
      };
    };
    const call = {} as OperationCall;
    const all = composePolicies([recording('a'), recording('b')], { access }, execute);
    expect((await all(call)).report).toMatchObject({ answeredBy: 'execution', attempts: 1 });
    expect(seen).toEqual(['a in', 'b in', 'execute', 'b out', 'a out']);
    seen.length = 0;
    const stopped = composePolicies(
      [recording('a'), recording('b', true), recording('c')],
      { access },
      execute,
    );
    expect(await stopped(call)).toEqual({
      result: { data: { answeredBy: 'b' } },
      report: { attempts: 0, commit: 'none', replayed: false, answeredBy: 'b' },
    });
    expect(seen).toEqual(['a in', 'b in', 'a out']);
  });
});

describe('what an operation asks of its caller, read before it runs', () => {
  const viewer = (scopes: readonly string[], role: 'USER' | 'ADMIN' = 'USER'): Identity => ({
    subject: 'agent-1',
    userId: null,
    role,
    scopes,
    expiresAt: Date.now() / 1000 + 600,
  });

  it('refuses a token without a scope some field needs as @auth does, naming the scope and the root field', () => {
    const document = parse(
      'mutation { saved: addToWatchlist(subject: {movieId: "1"}) { id content { ... on Movie { reviews { id } } } } }',
    );
    expect(access.refusalFor(document, undefined, viewer(ALL_SCOPES))).toBeUndefined();
    const writeOnly = access.refusalFor(document, undefined, viewer(['watchlist:write']));
    expect(writeOnly?.message).toBe('This token lacks the scope reviews:read needed by reviews');
    expect(writeOnly?.path).toEqual(['saved']);
    expect(writeOnly?.extensions).toMatchObject({
      classification: 'FORBIDDEN',
      requiredScopes: ['reviews:read'],
    });
    expect(access.refusalFor(document, undefined, viewer(['movies:read']))?.extensions).toMatchObject({
      requiredScopes: ['watchlist:write'],
    });
  });

  it('finds rules behind fragments, and roles too', () => {
    const document = parse('mutation { ...F } fragment F on Mutation { deleteMovie(id: "1") }');
    expect(access.refusalFor(document, undefined, viewer(ALL_SCOPES))?.extensions).toMatchObject({
      classification: 'FORBIDDEN',
      requiredRole: 'ADMIN',
    });
    expect(access.refusalFor(document, undefined, viewer(ALL_SCOPES, 'ADMIN'))).toBeUndefined();
  });

  it('knows a document that issues a bearer token, however register or login is reached', () => {
    const issues = (source: string, operationName?: string) =>
      access.issuesTokens(parse(source), operationName);
    const credentials = '(input: {username: "u", password: "p"})';
    expect(issues(`mutation { login${credentials} { token } }`)).toBe(true);
    expect(issues(`mutation { me: login${credentials} { user { id } } }`)).toBe(true);
    expect(issues(`mutation { ...F } fragment F on Mutation { login${credentials} { token } }`)).toBe(true);
    expect(
      issues(
        `mutation { ... on Mutation { register(input: {username: "u", email: "e@x.io", password: "secret"}) { token } } }`,
      ),
    ).toBe(true);
    expect(issues('mutation { addToWatchlist(subject: {movieId: "1"}) { id } }')).toBe(false);
    expect(
      issues(
        `mutation A { addToWatchlist(subject: {movieId: "1"}) { id } } mutation B { login${credentials} { token } }`,
        'A',
      ),
    ).toBe(false);
  });
});
