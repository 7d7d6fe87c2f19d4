/** pg, imported only for a PostgreSQL store: a SQLite server never loads its modules. */
import type pg from 'pg';

export const loadPg = async (): Promise<typeof pg> => (await import('pg')).default;
