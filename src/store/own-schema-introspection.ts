/**
 * Kysely's migrator asks whether its bookkeeping tables exist by listing the tables of every schema of
 * the database, calling functions on each schema's name; when another user of the database drops a
 * schema meanwhile, that listing fails (3F000) and so does our start. With a shared database (the test
 * suites of several people, or several apps) that happened often. This gives the migrator a view of
 * the database whose introspection lists only our own schema's tables; everything else is the same.
 */
import { sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';

export function withOwnSchemaIntrospection<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspector: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{
        name: string;
      }>`select tablename as name from pg_catalog.pg_tables where schemaname = ${schema}`.execute(db);
      return rows.map((row) => ({ name: row.name, schema, isView: false, columns: [] }));
    },
    async getMetadata() {
      return { tables: await this.getTables() };
    },
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      // Kysely keeps its state in private fields: its methods must run on the instance itself.
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
