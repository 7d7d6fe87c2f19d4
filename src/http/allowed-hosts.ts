/**
 * DNS-rebinding protection: which `Host` headers this server answers. A page on another site whose name
 * is rebound to this server's address sends its own name as `Host`; refusing unknown names is what keeps
 * it out. The rule is the same for /mcp and /graphql (a rebinding page could otherwise sign in to
 * /graphql as a seed account and act, where /mcp would refuse it). The names: MCP_ALLOWED_HOSTS, else
 * loopback names on a loopback bind, plus PUBLIC_URL's host. Config refuses a public bind without either.
 */
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { isLoopbackHost, LOOPBACK_NAMES } from './is-loopback-host.js';
import { sendError } from './send-error.js';

function hostnameOf(hostHeader: string): string {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return '';
  }
}

/** How many allowed Host values are remembered. */
const KNOWN_HOSTS = 64;

export interface HostCheck {
  /** Whether a request carrying this Host header (name, optionally with a port) may be answered. */
  allows(hostHeader: string): boolean;
  /** The host name of a Host header ('' when it is not one). */
  hostnameOf(hostHeader: string): string;
}

export function createHostCheck(mcp: Config['mcp'], listenHost: string): HostCheck {
  const publicOrigin = mcp.publicUrl ? new URL(mcp.publicUrl) : undefined;
  const allowed = [
    ...(mcp.allowedHosts ?? (isLoopbackHost(listenHost) ? LOOPBACK_NAMES : [])),
    ...(publicOrigin ? [publicOrigin.hostname] : []),
  ];
  // Every request names one of a few Host values: those allowed are remembered (bounded, as the header
  // is the client's), so a URL is not parsed per request.
  const known = new Set<string>();
  return {
    allows(hostHeader) {
      if (known.has(hostHeader)) return true;
      const allows = allowed.includes(hostnameOf(hostHeader)) || allowed.includes(hostHeader);
      if (allows && known.size < KNOWN_HOSTS) known.add(hostHeader);
      return allows;
    },
    hostnameOf,
  };
}

/** Refuses a request whose Host is not ours with a classified 403 (the /graphql error shape). */
export function refuseForeignHosts(check: HostCheck): RequestHandler {
  return (req, res, next) => {
    const host = req.get('host') ?? '';
    if (check.allows(host)) return next();
    sendError(res, 403, 'FORBIDDEN', `Forbidden: Host ${host} is not allowed`);
  };
}
