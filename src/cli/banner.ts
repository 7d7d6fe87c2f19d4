/** The start-up banner for a person at a terminal: where everything is, in a few lines. */
import path from 'node:path';
import type { Config } from '../config.js';
import { urlHost } from '../http/url-host.js';
import { describeDatabase } from './describe-failure.js';

/** A URL a browser on this machine can open: a wildcard bind is reached through loopback. */
export function browsableBaseUrl(config: Pick<Config, 'host' | 'mcp'>, port: number): string {
  if (config.mcp.publicUrl) return config.mcp.publicUrl;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${urlHost(host)}:${port}`;
}

export function formatBanner(config: Config, port: number, version: string): string {
  const base = browsableBaseUrl(config, port);
  const secret = config.jwt.secret
    ? 'JWT_SECRET (from the environment)'
    : `development key in ${path.join(config.database.dataDir, 'jwt-secret')} (generated on first start; set JWT_SECRET in production)`;
  const rows: [string, string][] = [
    ['GraphiQL', `${base}/graphql   (open in a browser)`],
    ['MCP', `${base}/mcp   (${config.mcp.mode}, auth ${config.mcp.auth})`],
    ['Health', `${base}/healthz   readiness ${base}/readyz`],
    ['Metrics', `${base}/metrics`],
    ['Store', describeDatabase(config)],
    ['Signing', secret],
    [
      'Token',
      `${port === 8080 || config.mcp.publicUrl ? '' : `PORT=${port} `}npx moviedb-mcp token user user123   (seed users: see README)`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `moviedb-mcp ${version} is ready (${config.nodeEnv}, listening on ${config.host}:${port}). Ctrl+C stops it.`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
  ].join('\n');
}
