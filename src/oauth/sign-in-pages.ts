/**
 * The sign-in and consent pages of the built-in authorization server: plain HTML forms with inline
 * styles and no script or external asset (the Content-Security-Policy allows nothing else), every
 * field labelled, errors announced to assistive technology (role="alert"), and the page unframeable, so
 * a consent button cannot be clickjacked.
 */
import type { Response } from 'express';

const SCOPE_TEXT: Record<string, string> = {
  'movies:read': 'Read the movie catalogue',
  'reviews:read': 'Read reviews',
  'reviews:write': 'Write, change and delete your reviews',
  'watchlist:read': 'See your watch list',
  'watchlist:write': 'Add to and remove from your watch list',
  'graphql:execute': 'Run your own GraphQL queries (within the other permissions granted)',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#111}
h1{font-size:1.4rem}label{display:block;margin-top:1rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #555;border-radius:4px}
button{margin-top:1.25rem;padding:.55rem 1.2rem;font:inherit;border-radius:4px;border:1px solid #123;cursor:pointer}
button.primary{background:#0b5394;color:#fff}.alert{border:2px solid #a00;padding:.5rem;color:#a00}
:focus-visible{outline:3px solid #0b5394;outline-offset:2px}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function send(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>${escapeHtml(title)} · MovieDB</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    );
}

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('');
}

function alert(message: string | undefined): string {
  return message ? `<p class="alert" role="alert" id="form-error">${escapeHtml(message)}</p>` : '';
}

export interface SignInPage {
  clientName: string;
  request: string;
  csrf: string;
  username?: string;
  error?: string;
}

export function sendSignInPage(res: Response, page: SignInPage, status = 200): void {
  const described = page.error ? ' aria-describedby="form-error"' : '';
  send(
    res,
    status,
    'Sign in',
    `<h1>Sign in to MovieDB</h1><p><strong>${escapeHtml(page.clientName)}</strong> wants to use your MovieDB account.</p>` +
      alert(page.error) +
      `<form method="post" action="/oauth/sign-in">${hidden({ request: page.request, csrf: page.csrf })}` +
      `<label for="username">Username</label><input id="username" name="username" autocomplete="username" required maxlength="50"${described} value="${escapeHtml(page.username ?? '')}">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200"${described}>` +
      `<button class="primary" type="submit">Sign in</button></form>`,
  );
}

export interface ConsentPage {
  clientName: string;
  username: string;
  scopes: readonly string[];
  request: string;
  csrf: string;
}

export function sendConsentPage(res: Response, page: ConsentPage): void {
  const items = page.scopes.map(
    (s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`,
  );
  send(
    res,
    200,
    'Allow access',
    `<h1>Allow access?</h1><p>Signed in as <strong>${escapeHtml(page.username)}</strong>. ` +
      `<strong>${escapeHtml(page.clientName)}</strong> asks to:</p><ul aria-label="Requested permissions">${items.join('')}</ul>` +
      `<form method="post" action="/oauth/consent">${hidden({ request: page.request, csrf: page.csrf })}` +
      `<button class="primary" type="submit" name="decision" value="approve">Allow</button> ` +
      `<button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

export function sendErrorPage(res: Response, status: number, message: string): void {
  send(
    res,
    status,
    'Sign-in problem',
    `<h1>This sign-in cannot continue</h1>${alert(message)}<p>Start again from your application.</p>`,
  );
}
