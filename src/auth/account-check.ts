/**
 * Refuses a token of ours whose account no longer exists (a 401 on /graphql and /mcp alike, since both
 * read bearers through readBearer), and takes the role from the account as it is now, so a demoted
 * administrator loses the role at once rather than when the token expires. It sits outside the
 * verification cache: the signature check is remembered, the account is looked up on every request (by
 * primary key), so a deleted user is refused from the next request on, on every replica.
 *
 * When the store cannot answer in time the token is let through with its own claims: the request can
 * then reach nothing but public data, and every resolver that acts for the viewer loads the account by id
 * and refuses with UNAUTHORIZED when it is gone, so availability of the bearer check follows the store's.
 */
import { TaskCancelledError, TimeoutStrategy, timeout } from 'cockatiel';
import type { RoleName } from './identity.js';
import type { BearerVerifier } from './bearer.js';
import { InvalidTokenError } from './tokens.js';

export interface AccountCheckOptions {
  /** The account's current role, or undefined when no account has this id. */
  findAccount(userId: number): Promise<{ role: RoleName } | undefined>;
  /** How long to wait for the store before falling back to the token's claims. */
  timeoutMs: number;
  /** Told when the lookup failed or timed out (the request goes on); at most once per 10 s. */
  onUnavailable?: (error: unknown) => void;
}

/** During an outage every request would report the same thing: say it once per interval. */
const REPORT_INTERVAL_MS = 10_000;

export function withAccountCheck(verifier: BearerVerifier, options: AccountCheckOptions): BearerVerifier {
  let lastReport = -Infinity;
  const unavailable = (error: unknown) => {
    const now = Date.now();
    if (now - lastReport < REPORT_INTERVAL_MS) return;
    lastReport = now;
    options.onUnavailable?.(error);
  };
  // abortOnReturn off: nothing is left to abandon once the lookup answered, and aborting would build an
  // AbortError per request.
  const lookupDeadline = timeout(options.timeoutMs, {
    strategy: TimeoutStrategy.Aggressive,
    abortOnReturn: false,
  });
  return {
    async verify(token) {
      const identity = await verifier.verify(token);
      if (identity.userId === null) return identity;
      const { userId } = identity;
      let account: { role: RoleName } | undefined;
      try {
        account = await lookupDeadline.execute(() => options.findAccount(userId));
      } catch (error) {
        unavailable(error instanceof TaskCancelledError ? new Error('account lookup timed out') : error);
        return identity;
      }
      if (!account) throw new InvalidTokenError('The account this token was issued for no longer exists');
      return account.role === identity.role ? identity : { ...identity, role: account.role };
    },
  };
}
