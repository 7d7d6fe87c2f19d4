/** Which statements a PostgreSQL connection sends named, and what it does when a named one goes stale. */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createStatementNames, nameStatementsOf } from '../../src/store/named-statements.js';

/** A pooled client that records what it was asked to run and answers with `answer`. */
function fakeClient(answer: (config: unknown) => Promise<unknown> = async () => ({ rows: [] })) {
  const sent: unknown[] = [];
  const client = {
    query: (config: unknown, values?: unknown) => {
      sent.push(values === undefined ? config : { text: config, values });
      return answer(config);
    },
    getTransactionStatus: () => 'I',
  };
  return { client: client as unknown as pg.PoolClient, sent };
}

describe('named statements', () => {
  it('names a text from its second use on, the same name on every connection', async () => {
    const names = createStatementNames();
    const a = fakeClient();
    const b = fakeClient();
    nameStatementsOf(a.client, names);
    nameStatementsOf(b.client, names);
    const text = 'select * from "movies" where "id" in ($1)';
    await a.client.query(text, [1]);
    await a.client.query(text, [2]);
    await b.client.query(text, [3]);
    expect(a.sent).toEqual([
      { text, values: [1] },
      { name: 'moviedb_0', text, values: [2] },
    ]);
    expect(b.sent).toEqual([{ name: 'moviedb_0', text, values: [3] }]);
  });

  it('leaves statements without parameters unnamed, and names no more than its limit', async () => {
    const names = createStatementNames(2);
    const { client, sent } = fakeClient();
    nameStatementsOf(client, names);
    for (let i = 0; i < 2; i++) {
      await client.query('begin', []);
      for (const n of [1, 2, 3]) await client.query(`select $1::int + ${n}`, [n]);
    }
    expect(names.size).toBe(2);
    expect(sent.filter((s) => (s as { name?: string }).name).length).toBe(2);
  });

  it('sends a text unnamed from then on once the database refused its stale plan, again at once outside a transaction', async () => {
    const names = createStatementNames();
    const stale = Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
    const { client, sent } = fakeClient(async (config) => {
      if (typeof config === 'object' && config !== null && 'name' in config) throw stale;
      return { rows: [] };
    });
    nameStatementsOf(client, names);
    const text = 'select * from "movies" where "id" = $1';
    await client.query(text, [1]);
    await expect(client.query(text, [2])).resolves.toEqual({ rows: [] });
    await client.query(text, [3]);
    expect(sent).toEqual([
      { text, values: [1] },
      { name: 'moviedb_0', text, values: [2] },
      { text, values: [2] },
      { text, values: [3] },
    ]);
  });
});
