/**
 * A user agent for the built-in authorization server's pages, over plain HTTP: it opens the authorization
 * URL, reads the sign-in form (its hidden fields and CSRF cookie), posts the credentials, reads the
 * consent form and posts the decision, and answers where the server redirected. Also a loopback listener
 * that catches the redirect as a native client's would, and an OAuthClientProvider for the SDK's client.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export interface PageResult {
  status: number;
  html: string;
  location?: string;
}

/** The hidden fields of the page's form. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[match[1]!] = match[2]!.replace(/&#(\d+);/g, (_, code: string) =>
      String.fromCharCode(Number(code)),
    );
  return fields;
}

export class PagesBrowser {
  private readonly cookies = new Map<string, string>();

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  async get(url: string): Promise<PageResult> {
    const response = await fetch(url, { redirect: 'manual', headers: this.cookieHeader() });
    this.remember(response);
    return {
      status: response.status,
      html: await response.text(),
      location: response.headers.get('location') ?? undefined,
    };
  }

  async post(url: string, fields: Record<string, string>): Promise<PageResult> {
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(response);
    return {
      status: response.status,
      html: await response.text(),
      location: response.headers.get('location') ?? undefined,
    };
  }

  /** Signs in and decides on the consent page; answers the redirect the decision produced. */
  async signInAndDecide(
    authorizationUrl: string,
    credentials: { username: string; password: string },
    decision: 'approve' | 'deny' = 'approve',
  ): Promise<{ location: string; consentHtml: string }> {
    const origin = new URL(authorizationUrl).origin;
    const signIn = await this.get(authorizationUrl);
    if (signIn.status !== 200)
      throw new Error(`authorize answered ${signIn.status}: ${signIn.html} ${signIn.location}`);
    const consent = await this.post(`${origin}/oauth/sign-in`, {
      ...hiddenFields(signIn.html),
      ...credentials,
    });
    if (consent.status !== 200) throw new Error(`sign-in answered ${consent.status}: ${consent.html}`);
    const decided = await this.post(`${origin}/oauth/consent`, { ...hiddenFields(consent.html), decision });
    if (decided.status !== 303 || !decided.location) throw new Error(`consent answered ${decided.status}`);
    return { location: decided.location, consentHtml: consent.html };
  }
}

/** A native client's loopback redirect listener on 127.0.0.1, any free port. */
export async function startLoopbackCallback() {
  const received: URLSearchParams[] = [];
  // Only the redirect path counts: a browser also asks this origin for /favicon.ico after the redirect.
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    received.push(url.searchParams);
    res.end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * The SDK client's view of an OAuth client: it registers dynamically, and when sent to authorize it
 * drives the pages with `browser` and follows the final redirect to the loopback listener.
 */
export class PagesOAuthProvider implements OAuthClientProvider {
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  readonly browser = new PagesBrowser();

  constructor(
    private readonly callbackUrl: string,
    private readonly credentials: { username: string; password: string },
    private readonly scope?: string,
  ) {}

  get redirectUrl() {
    return this.callbackUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'OAuth flow test client',
      redirect_uris: [this.callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const { location } = await this.browser.signInAndDecide(url.href, this.credentials);
    // Follow the redirect as the browser would: the loopback listener records the code.
    await fetch(location);
  }
}
