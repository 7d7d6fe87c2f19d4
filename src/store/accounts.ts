/** Users: lookups and registration. */
import type { Kysely } from 'kysely';
import { prepareQuery } from './prepared-query.js';
import type { Database, RoleName, User } from './tables.js';

export function createAccounts(db: Kysely<Database>) {
  // The hot statements (the user loader; the account check of every signed-in request), compiled once.
  const usersByIds = prepareQuery(db, (q, ids: readonly number[]) =>
    q.selectFrom('users').selectAll().where('id', 'in', ids),
  );
  const roleById = prepareQuery(db, (q, id: number) =>
    q.selectFrom('users').select('role').where('id', '=', id),
  );
  return {
    usersByIds: (ids: readonly number[]) => usersByIds.execute([ids]),
    usersByUsernames: (names: readonly string[]) =>
      db
        .selectFrom('users')
        .selectAll()
        .where('username', 'in', [...names])
        .execute(),
    /** The account's current role; undefined when no account has this id (deleted). */
    roleById: (id: number) => roleById.executeTakeFirst([id]),
    findByUsername: (username: string) =>
      db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst(),
    /** Inserts the user; a taken username or e-mail trips a unique index (the caller classifies it). */
    create: (
      user: { username: string; email: string; passwordHash: string; role: RoleName },
      trx: Kysely<Database>,
    ): Promise<User> =>
      trx
        .insertInto('users')
        .values({
          username: user.username,
          email: user.email,
          password_hash: user.passwordHash,
          role: user.role,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    /**
     * Which of username and e-mail are taken, for a friendly error before the insert. A username is
     * taken by any account whose name differs only in case (the users_username_lower_uq index).
     */
    async taken(username: string, email: string): Promise<{ username: boolean; email: boolean }> {
      const name = username.toLowerCase();
      const rows = await db
        .selectFrom('users')
        .select(['username', 'email'])
        .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', name), eb('email', '=', email)]))
        .execute();
      return {
        username: rows.some((r) => r.username.toLowerCase() === name),
        email: rows.some((r) => r.email === email),
      };
    },
  };
}
