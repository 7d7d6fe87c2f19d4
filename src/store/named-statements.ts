/**
 * Names the hot statements of a PostgreSQL pool, so each connection parses and plans them once and then
 * only binds and executes them. kysely sends every statement unnamed, which PostgreSQL parses and plans
 * again on every call. A statement text is named the second time the pool sees it (a one-off text, such
 * as an administrator's edit, never takes a name), and at most `limit` texts get one: a connection keeps
 * each named statement until it closes, and `in` lists of every length are distinct texts.
 *
 * A named statement's plan is tied to the table definitions it was parsed against: after a migration
 * elsewhere changes a table it reads, PostgreSQL refuses it (0A000, "cached plan must not change result
 * type"). That connection then sends the text unnamed from then on, and a statement outside a transaction
 * is sent again at once, so a rolling deployment costs no request outside a transaction.
 */
import type pg from 'pg';

/** Named statements per connection; our hot statements have a few dozen shapes. */
const NAMED_STATEMENT_LIMIT = 100;

/** Texts seen once, kept until a second use names them; cleared when full so it stays bounded. */
const SEEN_ONCE_LIMIT = 4 * NAMED_STATEMENT_LIMIT;

const FEATURE_NOT_SUPPORTED = '0A000';

export interface StatementNames {
  /** The name of this text, if it has one (or takes one now). */
  nameOf(text: string): string | undefined;
  /** How many texts are named. */
  readonly size: number;
}

export function createStatementNames(limit = NAMED_STATEMENT_LIMIT): StatementNames {
  const names = new Map<string, string>();
  const seenOnce = new Set<string>();
  return {
    nameOf(text) {
      const name = names.get(text);
      if (name !== undefined || names.size >= limit) return name;
      if (!seenOnce.has(text)) {
        if (seenOnce.size >= SEEN_ONCE_LIMIT) seenOnce.clear();
        seenOnce.add(text);
        return undefined;
      }
      seenOnce.delete(text);
      const named = `moviedb_${names.size}`;
      names.set(text, named);
      return named;
    },
    get size() {
      return names.size;
    },
  };
}

type Query = (config: pg.QueryConfig) => Promise<pg.QueryResult>;

/** Makes this pooled client send the named texts as named statements (kysely calls query(text, values)). */
export function nameStatementsOf(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as unknown as (...args: unknown[]) => unknown;
  const named = query as unknown as Query;
  // Names whose statement PostgreSQL refused on this connection after a schema change.
  const stale = new Set<string>();
  client.query = ((text: unknown, values: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || rest.length > 0)
      return query(text, values, ...rest);
    const name = names.nameOf(text);
    if (name === undefined || stale.has(name)) return query(text, values);
    const outsideTransaction = client.getTransactionStatus() === 'I';
    return named({ name, text, values }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== FEATURE_NOT_SUPPORTED) throw error;
      stale.add(name);
      if (!outsideTransaction) throw error;
      return query(text, values);
    });
  }) as typeof client.query;
}
