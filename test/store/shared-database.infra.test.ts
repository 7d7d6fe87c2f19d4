import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('a PostgreSQL database shared with others', () => {
  it('migrates while other schemas of the database are created and dropped all the time', async () => {
    const prefix = `churn_${randomBytes(4).toString('hex')}`;
    let stop = false;
    // Another user of the database, busy creating and dropping schemas of its own.
    const churn = async (worker: number) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      for (let i = 0; !stop; i++) {
        const schema = `${prefix}_${worker}_${i}`;
        await client.query(`create schema ${schema}; create table ${schema}.t (id serial, a int, b int)`);
        await client.query(`drop schema ${schema} cascade`);
      }
      await client.end();
    };
    const churning = [churn(1), churn(2)];
    const ours = `test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (let start = 0; start < 4; start++) {
        await admin.query(`drop schema if exists ${ours} cascade`);
        const handle = await openDatabase({
          url,
          schema: ours,
          poolSize: 1,
          dataDir: '.',
          seedFile: path.resolve('seed/moviedb-seed.json'),
        });
        await handle.close();
      }
    } finally {
      stop = true;
      await Promise.all(churning);
      await admin.query(`drop schema if exists ${ours} cascade`);
      await admin.end();
    }
    expect(stop).toBe(true);
  });
});

describe.skipIf(!url)('replicas starting together on a new schema', () => {
  it('all open it: the first creates the schema and the others wait for it', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const ours = `together_${randomBytes(6).toString('hex')}`;
    const open = () =>
      openDatabase({
        url,
        schema: ours,
        poolSize: 1,
        dataDir: '.',
        seedFile: path.resolve('seed/moviedb-seed.json'),
      });
    try {
      for (let round = 0; round < 3; round++) {
        await admin.query(`drop schema if exists ${ours} cascade`);
        const handles = await Promise.all([open(), open(), open()]);
        await Promise.all(handles.map((handle) => handle.close()));
      }
      const { rows } = await admin.query(`select count(*)::int as n from ${ours}.movies`);
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await admin.query(`drop schema if exists ${ours} cascade`);
      await admin.end();
    }
  });
});

describe.skipIf(!url)('no DATABASE_SCHEMA: the tables go where the search path says', () => {
  it('two deployments whose URLs name different search paths each migrate, seed and keep their bookkeeping beside their tables', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const schemas = [1, 2].map((n) => `searched_${n}_${randomBytes(4).toString('hex')}`);
    try {
      for (const schema of schemas) {
        await admin.query(`create schema ${schema}`);
        const searched = new URL(url!);
        searched.searchParams.set('options', `-c search_path=${schema}`);
        const handle = await openDatabase({
          url: searched.toString(),
          poolSize: 1,
          dataDir: '.',
          seedFile: path.resolve('seed/moviedb-seed.json'),
        });
        await handle.close();
        const { rows } = await admin.query(
          `select (select count(*)::int from ${schema}.movies) as movies,
                  (select count(*)::int from ${schema}.kysely_migration) as migrations`,
        );
        // Before, the bookkeeping went to public: the second deployment found every migration done there
        // and made no tables at all.
        expect(rows[0].movies).toBeGreaterThan(0);
        expect(rows[0].migrations).toBeGreaterThan(0);
      }
    } finally {
      for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
