/**
 * What every family of hostile cases shares: the case types, the tokens, headers, bad values and the builders
 * of GraphQL and MCP requests.
 */

/**
 * Which MCP session a request rides on: the anonymous one, the signed-in user's (with the user's token),
 * or the user's session id sent without any token.
 */
export type SessionRef = 'anonymous' | 'user' | 'user-id-anonymous';

/** A request sent with fetch. `session` attaches an MCP session opened beforehand (and its token). */
export interface HttpCase {
  kind: 'http';
  category: string;
  name: string;
  method: string;
  /** Path and query string. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  session?: SessionRef;
  /** Text the case sends that an answer may legitimately quote back (a rejected id, a search string). */
  echoes?: string[];
}

/** Bytes written to a plain TCP socket: HTTP that fetch would refuse to send. */
export interface RawCase {
  kind: 'raw';
  category: string;
  name: string;
  bytes: string | Uint8Array;
}

export type HostileCase = HttpCase | RawCase;

export interface CorpusTokens {
  /** A seed user's real token. */
  user: string;
  /** Validly signed with the server's secret, but `sub` is a number. */
  numericSub: string;
  /** Validly signed, `sub` an object. */
  objectSub: string;
  /** Validly signed, `sub` an empty string. */
  emptySub: string;
  /** Validly signed, `sub` names no user. */
  unknownSub: string;
  /** Validly signed, no role claim. */
  noRole: string;
  /** Validly signed, role not one we know. */
  oddRole: string;
  /** Signed, but expired an hour ago. */
  expired: string;
  /** Signed for another audience. */
  otherAudience: string;
  /** Signed with another secret. */
  otherSecret: string;
  /** `alg: none`, no signature. */
  algNone: string;
}

export const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/graphql-response+json',
};
export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** Text that SQL, LIKE, the GraphQL lexer, the JSON parser or a store may treat specially. */
export const HOSTILE_STRINGS: readonly string[] = [
  '%',
  '_',
  '\\',
  "'",
  '"',
  '%%',
  '_%_',
  '\\%',
  '\\\\_',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "admin'--",
  "%' OR 1=1 --",
  '1; SELECT pg_sleep(5)',
  "' UNION SELECT email, password_hash FROM users --",
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '\u202eevil\u202c',
  'zero\u200bwidth\u200d',
  '\ufeffbom',
  '\uffff\ufffe',
  'e\u0301\u0301\u0301\u0301',
  '😀🎬',
  'ｆｕｌｌｗｉｄｔｈ',
  '\u0085next\u2028line\u2029',
  '\r\n\t\u000b\u001f',
  '\u00c0\u00af',
  '${jndi:ldap://example.invalid/a}',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '../../../../etc/passwd',
  'a'.repeat(101),
  'b'.repeat(5000),
  ' ',
  '',
  'Godfather',
];

/** Values that are not a page number or size. */
export const BAD_NUMBERS: readonly unknown[] = [
  null,
  -1,
  -2147483648,
  0,
  101,
  2147483647,
  2147483648,
  1e10,
  1.5,
  -0.5,
  '10',
  'ten',
  [],
  [10],
  {},
  true,
  2 ** 53 + 2,
];

/** A GraphQL literal for a JSON value (JSON strings are valid GraphQL strings; objects need bare keys). */
export function literal(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    return `{ ${Object.entries(value as object)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

export function graphqlPost(
  category: string,
  name: string,
  query: string,
  variables?: unknown,
  options: { headers?: Record<string, string>; echoes?: string[] } = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'POST',
    path: '/graphql',
    headers: { ...JSON_HEADERS, ...options.headers },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
    echoes: options.echoes,
  };
}

export function graphqlGet(
  category: string,
  name: string,
  params: string,
  headers: Record<string, string> = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'GET',
    path: `/graphql?${params}`,
    headers: { accept: 'application/graphql-response+json', ...headers },
  };
}

let rpcId = 1000;
/** The next JSON-RPC id: one counter for the whole corpus, so ids stay unique across files. */
export const nextRpcId = () => ++rpcId;

export function mcpPost(
  category: string,
  name: string,
  message: unknown,
  options: {
    /** Default: the anonymous session; 'none' sends no session id. */
    session?: SessionRef | 'none';
    headers?: Record<string, string>;
    raw?: boolean;
    echoes?: string[];
  } = {},
): HttpCase {
  return {
    kind: 'http',
    category,
    name,
    method: 'POST',
    path: '/mcp',
    headers: { ...MCP_HEADERS, ...options.headers },
    body: options.raw ? (message as string) : JSON.stringify(message),
    session: options.session === 'none' ? undefined : (options.session ?? 'anonymous'),
    echoes: options.echoes,
  };
}

export function toolCall(name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextRpcId(), method: 'tools/call', params: { name, arguments: args } };
}

/** `depth` levels of `{"a": …}` (or `[…]`) around a leaf, built as text so no stack is needed here. */
export function nestedJson(depth: number, kind: 'object' | 'array' = 'object', leaf = '1'): string {
  return kind === 'object'
    ? '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)
    : '['.repeat(depth) + leaf + ']'.repeat(depth);
}

export function doublingChain(levels: number, type: string, leaf: string): string {
  const fragments = [`fragment F0 on ${type} { ${leaf} }`];
  for (let i = 1; i <= levels; i++) fragments.push(`fragment F${i} on ${type} { ...F${i - 1} ...F${i - 1} }`);
  return fragments.join('\n');
}

export const repeat = (count: number, make: (i: number) => string, separator = ' ') =>
  Array.from({ length: count }, (_, i) => make(i)).join(separator);
