/**
 * Tamper-proof values carried by the sign-in and consent forms and the sign-in cookie: JSON, HMAC-SHA256
 * signed with a key derived from the JWT secret (so any replica accepts what another wrote), with an
 * expiry. The pending authorization request travels in the form rather than in server memory, so the
 * pages need no session table and a replica restart loses nothing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The longest sealed value `open` reads. The forms' body limit (oauth-server.ts) leaves room for it, and
 * an authorization request whose sealed form would not fit is refused before its page is shown.
 */
export const MAX_SEALED_CHARS = 16_384;

export interface FormSeal {
  seal(purpose: string, value: object, ttlSeconds: number): string;
  /** A secret only this server can compute from `value` (the same every time, on every replica). */
  derive(purpose: string, value: string): string;
  /** The value, or undefined when it was altered, sealed for another purpose, or has expired. */
  open<T>(purpose: string, sealed: string | undefined): T | undefined;
}

export function createFormSeal(secret: string, now: () => number = Date.now): FormSeal {
  const key = createHmac('sha256', secret).update('moviedb-mcp oauth forms').digest();
  const sign = (purpose: string, body: string) =>
    createHmac('sha256', key).update(`${purpose}.${body}`).digest('base64url');
  return {
    seal(purpose, value, ttlSeconds) {
      const body = Buffer.from(JSON.stringify({ v: value, exp: now() + ttlSeconds * 1000 })).toString(
        'base64url',
      );
      return `${body}.${sign(purpose, body)}`;
    },
    derive: (purpose, value) => sign(`derive.${purpose}`, value),
    open<T>(purpose: string, sealed: string | undefined) {
      if (typeof sealed !== 'string' || sealed.length > MAX_SEALED_CHARS) return undefined;
      const [body, signature, extra] = sealed.split('.');
      if (!body || !signature || extra !== undefined) return undefined;
      const expected = Buffer.from(sign(purpose, body));
      const actual = Buffer.from(signature);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
      try {
        const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { v: T; exp: number };
        return parsed.exp > now() ? parsed.v : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** A fresh CSRF token: the form carries it and a cookie holds it (double submit, SameSite=Strict). */
export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares two CSRF tokens in constant time; a missing one never matches. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The cookies of a request, parsed without a dependency: `name=value` pairs separated by `;`. */
export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(at + 1).trim());
  }
  return cookies;
}
