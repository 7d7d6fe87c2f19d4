/**
 * A fresh store for each benchmarked server: a data folder of its own, or a PostgreSQL schema dropped
 * afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function createFreshStores(url: string | undefined) {
  const schemas: string[] = [];
  return {
    /** The settings of a server's fresh store. */
    storeIn(dataDir: string): Record<string, string> {
      if (!url) return { DATA_DIR: dataDir };
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return { DATABASE_URL: url, DATABASE_SCHEMA: schema };
    },
    async drop(): Promise<void> {
      if (!url || schemas.length === 0) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      for (const schema of schemas.splice(0)) await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    },
  };
}
