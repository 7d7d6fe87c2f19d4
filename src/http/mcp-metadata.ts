/**
 * RFC 9728 protected-resource metadata for /mcp: where a client learns which authorization server
 * issues tokens for this resource, and the URL a 401's challenge points at.
 */
import type { Request, RequestHandler } from 'express';
import { ALL_SCOPES } from '../auth/identity.js';
import type { Config } from '../config.js';

/** The canonical base URL: configured, or as the request reached us. */
export function baseUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export interface McpMetadata {
  /** Answers the metadata document. */
  metadata: RequestHandler;
  /** Where the metadata of this resource lives, as a challenge names it. */
  metadataUrl(req: Request): string;
}

export function mcpMetadata(mcp: Config['mcp'], oauthIssuer: string | undefined): McpMetadata {
  const metadataUrl = (req: Request) =>
    `${baseUrl(req, mcp.publicUrl)}/.well-known/oauth-protected-resource/mcp`;

  const metadata: RequestHandler = (req, res) => {
    const base = baseUrl(req, mcp.publicUrl);
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
