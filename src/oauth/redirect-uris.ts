/**
 * Which redirect URIs a client may register (OAuth 2.1 and RFC 8252, OAuth for native apps): `https`
 * anywhere; `http` only on a loopback address (a native client's local listener, whose port the
 * authorization request may change: the SDK's redirectUriMatches allows any port on loopback); or a
 * private-use scheme in reverse-domain form (`com.example.app:/callback`). Never a fragment, never a
 * scheme a browser would run (`javascript:`, `data:`), never userinfo.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/;
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:']);

/** Why the URI cannot be registered, or undefined when it can. */
export function refuseRedirectUri(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} has a fragment`;
  if (url.username || url.password) return `${uri} carries credentials`;
  if (REFUSED_SCHEMES.has(url.protocol)) return `${uri} uses a scheme that is never a redirect target`;
  if (url.protocol === 'https:') return url.hostname ? undefined : `${uri} names no host`;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : `${uri}: plain http is allowed on loopback only`;
  return PRIVATE_USE_SCHEME.test(url.protocol)
    ? undefined
    : `${uri}: a native client's own scheme must be in reverse-domain form (com.example.app:)`;
}
