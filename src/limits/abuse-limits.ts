/**
 * The abuse limits (the product contract's abuse limits): executed operations per principal, request
 * points for requests that execute nothing (MCP methods, refused GraphQL documents) per principal, login
 * failures per account and per client address, registrations per client address. Each rule is a RateLimiter, so a shared store
 * can replace the in-memory counters by passing another factory. Over a limit the caller gets
 * RATE_LIMITED with retryAfterSeconds; with RATE_LIMITS=off every check admits.
 */
import { createHash } from 'node:crypto';
import type { Identity } from '../auth/identity.js';
import type { Config } from '../config.js';
import { addressKey } from './address-key.js';
import { rateLimited } from './rate-limited.js';
import { createMemoryRateLimiter, type RateLimitDecision, type RateLimiterFactory } from './rate-limiter.js';

export interface Caller {
  viewer: Identity | null;
  /** The client address as this server trusts it (see TRUST_PROXY); undefined for in-process callers. */
  clientAddress?: string;
}

/** A login attempt whose failure is already counted: the resolver settles it once the password is checked. */
interface LoginAttempt {
  /** The password was right: the attempt no longer counts as a failure, and the account's failures are forgotten. */
  succeeded(): Promise<void>;
  /** The check could not be made (e.g. the store failed): the attempt is not counted. */
  abandoned(): Promise<void>;
}

export interface AbuseLimits {
  /** Counts one executed operation (a /graphql request or a tool call): per user if signed in, else per address. */
  admitOperation(caller: Caller): Promise<LimitDecision>;
  /**
   * Counts a request that executes nothing (an MCP message, a GraphQL document refused by the parser or
   * validation) at `points` (request-weights.ts): per user if signed in, else per address.
   */
  admitRequest(caller: Caller, points: number): Promise<LimitDecision>;
  /**
   * Counts a login failure for the account and the address before the password is hashed, so neither
   * concurrency nor scrypt's cost lets more guesses through; throws RATE_LIMITED when either is spent.
   * Unknown usernames are counted like known ones, so the answer never tells them apart.
   */
  startLogin(username: string, clientAddress: string | undefined): Promise<LoginAttempt>;
  /** Counts one registration attempt for the address; throws RATE_LIMITED when the address has used its quota. */
  startRegistration(clientAddress: string | undefined): Promise<void>;
}

/** A limiter's decision with the limit it applied, for the refusal's message. */
type LimitDecision = RateLimitDecision & { limit: number; windowSeconds: number };

const ADMIT = { allowed: true, retryAfterMs: 0 };

/** Every check admits: RATE_LIMITS=off (benchmarks, a trusted deployment behind its own limiter). */
const NO_LIMITS: AbuseLimits = {
  admitOperation: async () => ({ ...ADMIT, limit: Infinity, windowSeconds: 0 }),
  admitRequest: async () => ({ ...ADMIT, limit: Infinity, windowSeconds: 0 }),
  startLogin: async () => ({ succeeded: async () => undefined, abandoned: async () => undefined }),
  startRegistration: async () => undefined,
};

/** Account names are counted case-insensitively and hashed: fixed-size keys that hold no usernames. */
function accountKey(username: string): string {
  return createHash('sha256').update(username.normalize('NFKC').toLowerCase()).digest('base64url');
}

export function createAbuseLimits(
  settings: Config['rateLimits'],
  createLimiter: RateLimiterFactory = createMemoryRateLimiter,
): AbuseLimits {
  if (!settings.enabled) return NO_LIMITS;
  const userOperations = createLimiter({
    points: settings.userOperations,
    windowSeconds: settings.operationsWindowSeconds,
    keyPrefix: 'ops-user',
  });
  const anonymousOperations = createLimiter({
    points: settings.anonymousOperations,
    windowSeconds: settings.operationsWindowSeconds,
    keyPrefix: 'ops-addr',
  });
  const userRequests = createLimiter({
    points: settings.userRequests,
    windowSeconds: settings.operationsWindowSeconds,
    keyPrefix: 'req-user',
  });
  const anonymousRequests = createLimiter({
    points: settings.anonymousRequests,
    windowSeconds: settings.operationsWindowSeconds,
    keyPrefix: 'req-addr',
  });
  const loginFailuresByAccount = createLimiter({
    points: settings.loginFailuresPerAccount,
    windowSeconds: settings.loginWindowSeconds,
    keyPrefix: 'login-account',
  });
  const loginFailuresByAddress = createLimiter({
    points: settings.loginFailuresPerAddress,
    windowSeconds: settings.loginWindowSeconds,
    keyPrefix: 'login-addr',
  });
  const registrations = createLimiter({
    points: settings.registrationsPerAddress,
    windowSeconds: settings.registrationWindowSeconds,
    keyPrefix: 'register-addr',
  });

  return {
    async admitOperation({ viewer, clientAddress }) {
      const decision = viewer
        ? await userOperations.consume(viewer.subject)
        : await anonymousOperations.consume(addressKey(clientAddress));
      return {
        ...decision,
        limit: viewer ? settings.userOperations : settings.anonymousOperations,
        windowSeconds: settings.operationsWindowSeconds,
      };
    },

    async admitRequest({ viewer, clientAddress }, points) {
      const decision = viewer
        ? await userRequests.consume(viewer.subject, points)
        : await anonymousRequests.consume(addressKey(clientAddress), points);
      return {
        ...decision,
        limit: viewer ? settings.userRequests : settings.anonymousRequests,
        windowSeconds: settings.operationsWindowSeconds,
      };
    },

    async startLogin(username, clientAddress) {
      const account = accountKey(username);
      const address = addressKey(clientAddress);
      // The address first: an address over its quota creates no counters for the names it tries.
      const byAddress = await loginFailuresByAddress.consume(address);
      const byAccount = byAddress.allowed ? await loginFailuresByAccount.consume(account) : undefined;
      if (!byAddress.allowed || !byAccount?.allowed) {
        // A refused attempt hashes nothing and costs nothing: each point it took is given back, the
        // refused one included (a refusal still counts in the limiter). Otherwise correct sign-ins that
        // raced each other would leave their refusals behind and lock the address out for the window;
        // a guesser gains nothing, as a refused attempt tries no password.
        await Promise.all([
          loginFailuresByAddress.reward(address),
          ...(byAccount ? [loginFailuresByAccount.reward(account)] : []),
        ]);
        // One message for both counters and for known and unknown accounts alike.
        throw rateLimited(
          'Too many failed sign-in attempts',
          byAddress.allowed ? (byAccount?.retryAfterMs ?? 0) : byAddress.retryAfterMs,
        );
      }
      return {
        async succeeded() {
          // The address keeps every earlier failure: only this attempt's own reservation is given back, so
          // signing in to an account of one's own between guesses buys no extra guesses. The account's
          // failures are forgotten, which only someone who knows its password can cause.
          await Promise.all([loginFailuresByAddress.reward(address), loginFailuresByAccount.delete(account)]);
        },
        async abandoned() {
          await Promise.all([loginFailuresByAddress.reward(address), loginFailuresByAccount.reward(account)]);
        },
      };
    },

    async startRegistration(clientAddress) {
      const decision = await registrations.consume(addressKey(clientAddress));
      if (!decision.allowed)
        throw rateLimited('Too many registrations from this address', decision.retryAfterMs);
    },
  };
}
