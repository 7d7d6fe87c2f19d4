/**
 * RFC 9728 protected-resource metadata for /mcp: where a client learns which authorization server
 * issues tokens for this resource, and the URL a 401's challenge points at.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { RequestHandler } from 'express';
import { ALL_SCOPES } from '../auth/identity.js';
import type { Config } from '../config.js';

/** Which peers' X-Forwarded-Proto names the scheme (the app's compiled `trust proxy`). */
export type Trust = (address: string, hop: number) => boolean;

/** The scheme the request reached us by, as Express's `req.protocol` says it. */
function protocolOf(req: IncomingMessage, trust: Trust): string {
  const own = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  if (!trust(req.socket.remoteAddress ?? '', 0)) return own;
  const header = req.headers['x-forwarded-proto'];
  const named = (Array.isArray(header) ? header[0] : header) ?? own;
  return named.split(',')[0]!.trim();
}

/** The canonical base URL: configured, or as the request reached us. */
export function baseUrl(req: IncomingMessage, configured: string | undefined, trust: Trust): string {
  return configured ?? `${protocolOf(req, trust)}://${req.headers.host ?? 'localhost'}`;
}

export interface McpMetadata {
  /** Answers the metadata document. */
  metadata: RequestHandler;
  /** Where the metadata of this resource lives, as a challenge names it. */
  metadataUrl(req: IncomingMessage): string;
}

export function mcpMetadata(mcp: Config['mcp'], oauthIssuer: string | undefined, trust: Trust): McpMetadata {
  const metadataUrl = (req: IncomingMessage) =>
    `${baseUrl(req, mcp.publicUrl, trust)}/.well-known/oauth-protected-resource/mcp`;

  const metadata: RequestHandler = (req, res) => {
    const base = baseUrl(req, mcp.publicUrl, trust);
    res.json({
      resource: `${base}/mcp`,
      // Without an external issuer, the built-in authorization server (src/oauth/) issues at our base URL.
      authorization_servers: [oauthIssuer ?? base],
      scopes_supported: ALL_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'MovieDB MCP',
    });
  };
  return { metadata, metadataUrl };
}
