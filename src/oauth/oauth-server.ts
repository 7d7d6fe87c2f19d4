/**
 * The built-in OAuth 2.1 authorization server for the embedded default (no OAUTH_ISSUER), so clients that
 * only speak OAuth (mcp-remote, IDE and desktop clients, the SDKs' auth flows) can sign in with the app's
 * own accounts.
 *
 * Built on the MCP TypeScript SDK's authorization-server handlers (`@modelcontextprotocol/sdk/server/
 * auth`) rather than oidc-provider: they are Express handlers made for exactly this (the MCP
 * authorization profile: RFC 8414 metadata, S256-only PKCE, RFC 7591 registration, RFC 8252 loopback
 * redirects, RFC 7009 revocation, RFC 8707 resource), maintained with the SDK clients they must satisfy,
 * and they leave token minting to us, so access tokens stay this server's own JWTs (one identity model
 * for /graphql and /mcp). oidc-provider is a certified OpenID provider on Koa with its own key set, token
 * formats and a fifteen-model storage adapter: far more than this profile needs.
 *
 * Endpoints: /.well-known/oauth-authorization-server, /authorize, /oauth/sign-in, /oauth/consent,
 * /token, /register, /revoke. Every one counts against the app's abuse limits: sign-in failures against
 * the login limits, registrations against the registration limit, the rest as anonymous operations.
 */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { InvalidRequestError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { allowedMethods } from '@modelcontextprotocol/sdk/server/auth/middleware/allowedMethods.js';
import { ALL_SCOPES } from '../auth/identity.js';
import type { TokenService } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { refuseForeignHosts, type HostCheck } from '../http/allowed-hosts.js';
import { baseUrl } from '../http/mcp-metadata.js';
import { FORM_PARAMETER_LIMIT } from '../http/error-handlers.js';
import { OAUTH_PATHS } from '../http/route-table.js';
import type { AbuseLimits } from '../limits/abuse-limits.js';
import type { Store } from '../store/index.js';
import { createAuthorizationProvider, type PendingAuthorization } from './authorization-provider.js';
import { createFormSeal, MAX_SEALED_CHARS, newCsrfToken, readCookies, sameToken } from './form-seal.js';
import { oauthBodyErrors, readableOAuthErrors } from './oauth-errors.js';
import { createOAuthStore } from './oauth-store.js';
import { CONSENT_TTL_SECONDS, handleSignIn, handleConsent } from './sign-in-routes.js';
import { sendSignInPage } from './sign-in-pages.js';

export interface OAuthServerOptions {
  store: Store;
  tokens: TokenService;
  limits: AbuseLimits;
  /** The JWT secret: the forms' seal key is derived from it. */
  secret: string;
  /** PUBLIC_URL, when configured; otherwise the request's own scheme and Host. */
  publicUrl?: string;
  hostCheck: HostCheck;
  /** At most this many registered clients (registration floods). */
  maxClients?: number;
}

const CSRF_COOKIE = 'moviedb_oauth_csrf';
const REQUEST_TTL_SECONDS = 600;
const CSRF_TOKEN = /^[A-Za-z0-9_-]{32}$/;
/**
 * The longest sealed request the sign-in form carries: the consent form seals it again with the account,
 * which must still fit MAX_SEALED_CHARS. A longer request (a huge state, client name or redirect URI)
 * is refused at /authorize, where the client hears why, instead of showing a form that cannot succeed.
 */
const MAX_REQUEST_CHARS = MAX_SEALED_CHARS - 2048;
/** Room for a sealed form and its other fields, percent-encoded. */
const FORM_LIMIT = '32kb';

/** The paths this server answers, for the app to mount it on. */

/** RFC 8414 metadata: the issuer is this server's base URL, so the SDK clients' discovery finds it. */
function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    revocation_endpoint: `${base}/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    scopes_supported: ALL_SCOPES,
  };
}

/** An OAuth-shaped refusal (`{error, error_description}`) for a spent abuse limit. */
function answerLimit(res: Response, error: unknown): void {
  const seconds = error instanceof AppError ? Number(error.extensions.retryAfterSeconds ?? 1) : 1;
  res
    .status(429)
    .set({ 'Retry-After': String(seconds), 'Cache-Control': 'no-store' })
    .json({
      error: 'too_many_requests',
      error_description: error instanceof Error ? error.message : 'Rate limited',
    });
}

export function createOAuthServer(options: OAuthServerOptions): Router {
  const seal = createFormSeal(options.secret);
  const oauthStore = createOAuthStore(options.store.handle.db, {
    maxClients: options.maxClients ?? 1000,
    // Long enough for a client to finish signing in; short enough that a flood fills the registry briefly.
    unusedClientMaxAgeMs: 10 * 60 * 1000,
    expiredCodeKeepMs: CONSENT_TTL_SECONDS * 1000,
  });
  // Express's compiled `trust proxy` (TRUST_PROXY) says whose X-Forwarded-Proto to believe.
  const base = (req: Request) =>
    baseUrl(
      req,
      options.publicUrl,
      req.app.get('trust proxy fn') as (address: string, hop: number) => boolean,
    );
  const secure = (req: Request) => base(req).startsWith('https:');

  const showSignIn = (res: Response, pending: PendingAuthorization) => {
    const request = seal.seal('request', pending, REQUEST_TTL_SECONDS);
    if (request.length > MAX_REQUEST_CHARS)
      throw new InvalidRequestError(
        'The authorization request is too large to carry through sign-in: shorten its state (or the client name or redirect_uri)',
      );
    // The browser's token is kept when it has one, so two sign-ins open in two tabs both still work.
    const kept = readCookies(res.req.headers.cookie).get(CSRF_COOKIE);
    const csrf = kept && CSRF_TOKEN.test(kept) ? kept : newCsrfToken();
    res.cookie(CSRF_COOKIE, csrf, {
      httpOnly: true,
      sameSite: 'strict',
      secure: secure(res.req),
      path: '/oauth',
      maxAge: REQUEST_TTL_SECONDS * 1000,
    });
    sendSignInPage(res, {
      clientName: pending.clientName,
      request,
      csrf,
    });
  };

  const provider = createAuthorizationProvider({
    store: oauthStore,
    tokens: options.tokens,
    roleOf: async (userId) => (await options.store.accounts.roleById(userId))?.role,
    resourceOf: (res) => `${base(res.req)}/mcp`,
    showSignIn,
  });

  /** Counts the request as an anonymous operation of its address (the operations limit). */
  const admitted: RequestHandler = (req, res, next) => {
    options.limits
      .admitOperation({ viewer: null, clientAddress: req.ip })
      .then((decision) =>
        decision.allowed
          ? next()
          : answerLimit(
              res,
              new AppError('RATE_LIMITED', 'Too many requests', {
                retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
              }),
            ),
      )
      .catch(next);
  };
  const registrationAdmitted: RequestHandler = (req, res, next) => {
    if (req.method !== 'POST') return next();
    options.limits.startRegistration(req.ip).then(
      () => next(),
      (error: unknown) =>
        error instanceof AppError && error.classification === 'RATE_LIMITED'
          ? answerLimit(res, error)
          : next(error),
    );
  };
  // The pages' CSRF check: the form's token must be the one the cookie holds (double submit).
  const csrfOf = (req: Request) => {
    const field = (req.body as Record<string, unknown> | undefined)?.csrf;
    const cookie = readCookies(req.headers.cookie).get(CSRF_COOKIE);
    return typeof field === 'string' && sameToken(field, cookie) ? field : undefined;
  };

  const router = Router();
  // The same Host rule as /mcp: the issuer and resource are named after the Host when PUBLIC_URL is unset.
  router.use(OAUTH_PATHS, refuseForeignHosts(options.hostCheck), readableOAuthErrors);
  router.get('/.well-known/oauth-authorization-server', (req, res) => {
    res.json(authorizationServerMetadata(base(req)));
  });
  router.all('/.well-known/oauth-authorization-server', allowedMethods(['GET']));
  // The SDK's own in-memory rate limiters are off: the app's abuse limits (shared through Redis) count instead.
  router.use('/authorize', admitted, authorizationHandler({ provider, rateLimit: false }));
  const form = express.urlencoded({
    extended: false,
    limit: FORM_LIMIT,
    parameterLimit: FORM_PARAMETER_LIMIT,
  });
  const pages = { seal, provider, limits: options.limits, store: options.store, csrfOf };
  router.post('/oauth/sign-in', form, handleSignIn(pages));
  router.post('/oauth/consent', admitted, form, handleConsent(pages));
  router.all(['/oauth/sign-in', '/oauth/consent'], allowedMethods(['POST']));
  router.use('/token', admitted, tokenHandler({ provider, rateLimit: false }));
  router.use(
    '/register',
    registrationAdmitted,
    clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false }),
  );
  router.use('/revoke', admitted, revocationHandler({ provider, rateLimit: false }));
  router.use(OAUTH_PATHS, oauthBodyErrors);
  return router;
}
