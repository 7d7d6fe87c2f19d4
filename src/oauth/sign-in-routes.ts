/**
 * The two form posts of the built-in authorization server. Sign-in checks the app's own accounts with
 * the same rules as the `login` mutation: the failure is counted (per account and per address) before the
 * slow hash, an unknown user is checked against a decoy hash, and both mistakes read the same. Consent
 * names the scopes; approving issues a single-use code and redirects to the registered redirect URI the
 * SDK's authorize handler already matched. Each form must carry the CSRF token its cookie holds, and the
 * pending request is sealed (form-seal.ts) so no field of it can be altered on the way.
 */
import type { RequestHandler, Request, Response } from 'express';
import { DECOY_HASH, verifyPassword } from '../auth/password.js';
import { AppError } from '../errors.js';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import type { Store } from '../store/index.js';
import type { AuthorizationProvider, PendingAuthorization } from './authorization-provider.js';
import { newSecret } from './oauth-store.js';
import type { FormSeal } from './form-seal.js';
import { sendConsentPage, sendErrorPage, sendSignInPage } from './sign-in-pages.js';

export interface SignInRoutes {
  seal: FormSeal;
  provider: AuthorizationProvider;
  limits: AbuseLimits;
  store: Store;
  csrfOf(req: Request): string | undefined;
}

export const CONSENT_TTL_SECONDS = 300;
const INVALID_CREDENTIALS = 'Invalid credentials';

/** A signed-in user's pending request, bound to the browser's CSRF token. */
interface ConsentRequest {
  pending: PendingAuthorization;
  userId: number;
  username: string;
  csrf: string;
  /** What the form's one code is derived from. */
  nonce: string;
}

function field(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

function refuseForm(res: Response): void {
  sendErrorPage(res, 403, 'This form has expired or was not sent by this page. Start the sign-in again.');
}

export function handleSignIn(routes: SignInRoutes): RequestHandler {
  return async (req, res, next) => {
    try {
      const csrf = routes.csrfOf(req);
      const pending = routes.seal.open<PendingAuthorization>('request', field(req, 'request'));
      if (!csrf || !pending) return refuseForm(res);
      const username = field(req, 'username').slice(0, 200);
      const password = field(req, 'password').slice(0, 200);
      const again = (error: string, status: number) =>
        sendSignInPage(
          res,
          { clientName: pending.clientName, request: field(req, 'request'), csrf, username, error },
          status,
        );
      let attempt;
      try {
        attempt = await routes.limits.startLogin(username, req.ip);
      } catch (error) {
        if (!(error instanceof AppError) || error.classification !== 'RATE_LIMITED') throw error;
        res.set('Retry-After', String(error.extensions.retryAfterSeconds ?? 1));
        return again(error.message, 429);
      }
      let user;
      let valid: boolean;
      try {
        user = username ? await routes.store.accounts.findByUsername(username) : undefined;
        valid = await verifyPassword(password, user?.password_hash ?? DECOY_HASH);
      } catch (error) {
        await attempt.abandoned();
        throw error;
      }
      if (!user || !valid) return again(INVALID_CREDENTIALS, 400);
      await attempt.succeeded();
      const consent: ConsentRequest = {
        pending,
        userId: user.id,
        username: user.username,
        csrf,
        nonce: newSecret(),
      };
      sendConsentPage(res, {
        clientName: pending.clientName,
        username: user.username,
        scopes: pending.scopes,
        request: routes.seal.seal('consent', consent, CONSENT_TTL_SECONDS),
        csrf,
      });
    } catch (error) {
      next(error);
    }
  };
}

export function handleConsent(routes: SignInRoutes): RequestHandler {
  return async (req, res, next) => {
    try {
      const csrf = routes.csrfOf(req);
      const consent = routes.seal.open<ConsentRequest>('consent', field(req, 'request'));
      if (!csrf || !consent || consent.csrf !== csrf) return refuseForm(res);
      const { pending } = consent;
      const target = new URL(pending.redirectUri);
      if (field(req, 'decision') === 'approve') {
        const code = routes.seal.derive('code', consent.nonce);
        if (!(await routes.provider.issueCode(pending, consent.userId, code)))
          return sendErrorPage(res, 400, 'This consent was already used. Start the sign-in again.');
        target.searchParams.set('code', code);
      } else {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'The user denied access');
      }
      if (pending.state !== undefined) target.searchParams.set('state', pending.state);
      res.set('Cache-Control', 'no-store').redirect(303, target.href);
    } catch (error) {
      next(error);
    }
  };
}
