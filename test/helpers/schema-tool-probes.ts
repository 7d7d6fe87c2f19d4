/**
 * What the schema-tool tests ask a server: the schema tools a caller sees in both revisions, a token
 * narrowed to some scopes, a fragment bomb, and the bounds a listed argument may carry.
 */
import { decodeJwt } from 'jose';
import { connectClient } from './mcp.js';
import { connectModernClient } from './mcp-modern.js';
import type { TestServer } from './server.js';

export const SCHEMA_TOOLS = ['executeGraphQL', 'searchSchema', 'validateGraphQL'];

/** The schema tools a caller sees, as a 2025 session and as a 2026-07-28 client. */
export async function listedSchemaTools(url: string, token?: string) {
  const legacy = await connectClient(url, token);
  const modern = await connectModernClient(url, token ? { authorization: `Bearer ${token}` } : {});
  try {
    const names = (tools: { name: string }[]) =>
      tools
        .map((t) => t.name)
        .filter((name) => SCHEMA_TOOLS.includes(name))
        .sort();
    return {
      legacy: names((await legacy.listTools()).tools),
      modern: names((await modern.listTools()).tools),
    };
  } finally {
    await Promise.all([legacy.close(), modern.close()]);
  }
}

/** A token for the same account as `token`, granting only these scopes. */
export async function narrowed(server: TestServer, token: string, scopes: readonly string[]) {
  const { sub, role } = decodeJwt(token) as { sub: string; role: 'USER' | 'ADMIN' };
  return server.tokens.issue(Number(sub), role, { scopes, resource: `${server.url}/mcp`, ttlSeconds: 600 });
}

/** A 24-level doubling fragment chain: a few hundred bytes that would expand to 16 million fields. */
export function fragmentBomb(levels: number): string {
  const fragments = ['fragment F0 on Movie { title }'];
  for (let i = 1; i <= levels; i++) fragments.push(`fragment F${i} on Movie { ...F${i - 1} ...F${i - 1} }`);
  return `{ movie(id: "1") { ...F${levels} } }\n${fragments.join('\n')}`;
}

/** The bounds a listed argument may carry. */
export interface Bounds {
  type?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
}
