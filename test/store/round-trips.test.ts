/**
 * What each hot operation costs in statements, counted as the store reports them (onQuery): on
 * PostgreSQL each is a round trip to the database. A change that adds one to an operation fails here.
 * The counts include the bearer's account check, the first statement of every signed-in request.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestDialect, type TestServer } from '../helpers/server.js';

const operation = (name: string) => readFileSync(`operations/${name}.graphql`, 'utf8');

interface Budget {
  name: string;
  operation: string;
  variables: (itemId: string) => Record<string, unknown>;
  /** Statements of the first call and of a repeat (a shared read is then answered from the cache). */
  statements: Record<TestDialect, { first: number; repeat: number }>;
}

const BUDGETS: Budget[] = [
  {
    name: 'recommendMoviesForMood',
    operation: 'RecommendMoviesForMood',
    variables: () => ({ mood: 'HORROR' }),
    // The account check; the recommendation and the directors of the movies it found.
    statements: { sqlite: { first: 3, repeat: 1 }, postgres: { first: 3, repeat: 1 } },
  },
  {
    name: 'myWatchlist',
    operation: 'MyWatchlist',
    variables: () => ({}),
    // The account check; the account, its entries and their titles in one statement.
    statements: { sqlite: { first: 2, repeat: 2 }, postgres: { first: 2, repeat: 2 } },
  },
  {
    name: 'setWatchStatus',
    operation: 'SetWatchStatus',
    variables: (itemId) => ({ itemId, status: 'WATCHED' }),
    // The account check and the update alone, scoped to the token's account (no read of it first).
    statements: { sqlite: { first: 2, repeat: 2 }, postgres: { first: 2, repeat: 2 } },
  },
  {
    name: 'addToWatchlist',
    operation: 'AddToWatchlist',
    variables: () => ({ subject: { movieId: '40' } }),
    // The account check, the acting account, the movie named, and the insert; a repeat is refused by
    // the unique index with no statement more.
    statements: { sqlite: { first: 4, repeat: 4 }, postgres: { first: 4, repeat: 4 } },
  },
];

describe.each(dialects)('round trips of the hot operations on %s', (dialect) => {
  let server: TestServer;
  let statements: string[] = [];
  let token: string;
  let itemId: string;
  beforeAll(async () => {
    server = await startTestServer(dialect, { onQuery: (sql) => statements.push(sql) });
    token = await server.login('user', 'user123');
    const listed = await server.graphql<{ watchlist: { id: string }[] }>(operation('MyWatchlist'), {}, token);
    itemId = listed.body.data!.watchlist[0]!.id;
  });
  afterAll(() => server.stop());

  async function statementsOf(budget: Budget): Promise<string[]> {
    statements = [];
    const response = await server.graphql(operation(budget.operation), budget.variables(itemId), token);
    expect(response.status).toBe(200);
    return statements;
  }

  it.each(BUDGETS.map((budget) => [budget.name, budget] as const))(
    '%s sends no more statements than its budget',
    async (_name, budget) => {
      const { first, repeat } = budget.statements[dialect];
      const firstCall = await statementsOf(budget);
      expect(firstCall.length, firstCall.join('\n')).toBeLessThanOrEqual(first);
      const repeated = await statementsOf(budget);
      expect(repeated.length, repeated.join('\n')).toBeLessThanOrEqual(repeat);
    },
  );
});
