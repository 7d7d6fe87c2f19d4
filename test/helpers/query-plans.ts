/**
 * Explains SQL statements the way each store would run them, and sums up what matters for scale: tables
 * read in full, sorts, and the indexes used.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Dialect } from '../../src/store/database.js';
import type { Database } from '../../src/store/tables.js';

export interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

export interface Plan {
  sql: string;
  /** Tables read row by row from start to end (SQLite `SCAN table` without an index, PostgreSQL Seq Scan). */
  fullScans: string[];
  /** Sorts the database had to do (SQLite temp B-trees for ORDER BY, PostgreSQL Sort nodes). */
  sorts: number;
  /** Indexes (and SQLite FTS tables) the plan reads. */
  indexes: string[];
  /** The plan as the database printed it, for failure messages. */
  text: string;
}

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

function summarizePostgres(sqlText: string, root: PgNode): Plan {
  const plan: Plan = { sql: sqlText, fullScans: [], sorts: 0, indexes: [], text: JSON.stringify(root) };
  const visit = (node: PgNode) => {
    if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) plan.fullScans.push(node['Relation Name']);
    if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') plan.sorts++;
    if (node['Index Name']) plan.indexes.push(node['Index Name']);
    node.Plans?.forEach(visit);
  };
  visit(root);
  return plan;
}

interface SqlitePlanRow {
  id: number;
  parent: number;
  detail: string;
}

function summarizeSqlite(sqlText: string, rows: SqlitePlanRow[], tables: ReadonlySet<string>): Plan {
  const plan: Plan = {
    sql: sqlText,
    fullScans: [],
    sorts: 0,
    indexes: [],
    text: rows.map((row) => row.detail).join('\n'),
  };
  /** The table a step reads, if it reads one (not a subquery's rows). */
  const tableRead = (detail: string) => {
    const name = /^(?:SCAN|SEARCH) (\w+)/.exec(detail)?.[1];
    return name && tables.has(name) ? name : undefined;
  };
  for (const { parent, detail } of rows) {
    // `SCAN table` alone reads the table; `SCAN table USING [COVERING] INDEX i` walks an index in order.
    if (/^SCAN \w+$/.test(detail) && tableRead(detail)) plan.fullScans.push(tableRead(detail)!);
    // A sort of rows read from a table here; sorting a few subquery rows (a union's merge) is not one.
    if (
      /USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY/.test(detail) &&
      rows.some((sibling) => sibling.parent === parent && tableRead(sibling.detail))
    ) {
      plan.sorts++;
    }
    const index = /USING (?:COVERING )?INDEX (\w+)/.exec(detail);
    if (index) plan.indexes.push(index[1]!);
    const virtual = /^SCAN (\w+) VIRTUAL TABLE/.exec(detail);
    if (virtual) plan.indexes.push(virtual[1]!);
  }
  return plan;
}

/**
 * What an index is asked to serve: the statement's condition (find the rows without reading the table),
 * or its order too (read a page in order, no sort).
 */
export type Served = 'condition' | 'order';

/**
 * PostgreSQL settings that leave the planner only plans of the kind asked about. The tables of a test
 * are tiny, and on tiny tables reading the whole table (or a whole index) is the right plan, so the
 * planner is told to avoid everything else wherever something else exists (`enable_* = off` prices a
 * method out, it does not forbid it: with no alternative, it is still used and shows):
 * - condition: no sequential scans and no index walks, so only a bitmap scan of an index whose
 *   condition matches the statement's can avoid a full scan;
 * - order: no sequential scans and no sorts, so only an index in the statement's order can avoid both.
 * What is checked is therefore "an index can serve this statement", not the planner's choice at
 * 100,000 rows (npm run bench:store shows that one).
 */
const POSTGRES_SETTINGS: Record<Served, string[]> = {
  condition: ['enable_seqscan', 'enable_indexscan', 'enable_indexonlyscan'],
  order: ['enable_seqscan', 'enable_sort'],
};

/** Explains each statement; a statement the database refuses to plan (a table gone) throws. */
export async function explain(
  db: Kysely<Database>,
  dialect: Dialect,
  statements: readonly Statement[],
  served: Served,
): Promise<Plan[]> {
  // SQLite's plans name tables and subqueries alike. (Not asked of PostgreSQL, whose introspection reads
  // every schema of the database and fails when another test drops one meanwhile.)
  const tables = new Set(
    dialect === 'sqlite' ? (await db.introspection.getTables()).map((table) => table.name) : [],
  );
  const explainAll = async (connection: Kysely<Database>) => {
    const plans: Plan[] = [];
    for (const statement of statements) {
      if (dialect === 'postgres') {
        const { rows } = await connection.executeQuery<{ 'QUERY PLAN': [{ Plan: PgNode }] }>(
          CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]),
        );
        plans.push(summarizePostgres(statement.sql, rows[0]!['QUERY PLAN'][0].Plan));
      } else {
        const { rows } = await connection.executeQuery<SqlitePlanRow>(
          CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
        );
        plans.push(summarizeSqlite(statement.sql, [...rows], tables));
      }
    }
    return plans;
  };
  // Settings hold for one connection: a transaction is one already, otherwise one is held for this.
  const onOneConnection = <T>(work: (connection: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? work(db) : db.connection().execute(work);
  return onOneConnection(async (connection) => {
    if (dialect === 'sqlite') return explainAll(connection);
    for (const setting of POSTGRES_SETTINGS[served])
      await sql`set ${sql.raw(setting)} = off`.execute(connection);
    try {
      return await explainAll(connection);
    } finally {
      for (const setting of POSTGRES_SETTINGS[served])
        await sql`reset ${sql.raw(setting)}`.execute(connection);
    }
  });
}
