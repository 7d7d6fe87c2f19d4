/** Registration, sign-in and the signed-in user. */
import { DECOY_HASH, hashPassword, verifyPassword } from '../../auth/password.js';
import { badRequest } from '../../errors.js';
import { isUniqueViolation } from '../../store/db-errors.js';
import type { User } from '../../store/tables.js';
import { writeTransaction } from '../../store/write-transaction.js';
import { asOwnAccount } from '../auth-directives.js';
import { viewerAccount, type GraphQLContext } from '../context.js';

const INVALID_CREDENTIALS = 'Invalid credentials';

async function signIn(user: User, ctx: GraphQLContext) {
  return { token: await ctx.tokens.issue(user.id, user.role), user: asOwnAccount(user) };
}

export const accountResolvers = {
  Query: {
    me: async (_: unknown, _args: unknown, ctx: GraphQLContext) => (await viewerAccount(ctx)) ?? null,
  },
  Mutation: {
    async register(
      _: unknown,
      args: { input: { username: string; email: string; password: string } },
      ctx: GraphQLContext,
    ) {
      const { username, password } = args.input;
      const email = args.input.email.toLowerCase();
      // Counted before any lookup or hashing: every attempt, taken names included, uses the quota.
      await ctx.limits.startRegistration(ctx.clientAddress);
      const taken = await ctx.store.accounts.taken(username, email);
      if (taken.username) throw badRequest('This username is already taken', 'input.username');
      if (taken.email) throw badRequest('This e-mail address is already registered', 'input.email');
      // The slow hash is computed before the transaction, so it holds no connection meanwhile.
      const passwordHash = await hashPassword(password);
      let user: User;
      try {
        // Never under an idempotency key: the answer holds a token, which is not to be stored.
        const guard = { signal: ctx.signal, execution: ctx.execution };
        user = await writeTransaction(ctx.store.handle, guard, (trx) =>
          ctx.store.accounts.create({ username, email, passwordHash, role: 'USER' }, trx),
        );
      } catch (error) {
        // Lost a race with an identical registration: same answer as the check above.
        if (isUniqueViolation(error))
          throw badRequest('This username or e-mail address is already registered', 'input.username');
        throw error;
      }
      return signIn(user, ctx);
    },
    async login(_: unknown, args: { input: { username: string; password: string } }, ctx: GraphQLContext) {
      // The failure is counted before the lookup and the (deliberately slow) hash, for every username.
      const attempt = await ctx.limits.startLogin(args.input.username, ctx.clientAddress);
      let user: User | undefined;
      let valid: boolean;
      try {
        user = await ctx.store.accounts.findByUsername(args.input.username);
        // Check a decoy hash for unknown users so timing does not reveal which usernames exist.
        valid = await verifyPassword(args.input.password, user?.password_hash ?? DECOY_HASH);
      } catch (error) {
        await attempt.abandoned();
        throw error;
      }
      if (!user || !valid) throw badRequest(INVALID_CREDENTIALS);
      await attempt.succeeded();
      return signIn(user, ctx);
    },
  },
};
