import { z } from 'zod';
import { int, list, seconds, section, setting } from './setting.js';

export const mcpSettings = section(
  'MCP',
  z.object({
    mode: setting(
      'MCP_MODE',
      z.enum(['sessions', 'stateless']).default('sessions'),
      '`sessions` (Mcp-Session-Id, SSE responses) or `stateless` (a fresh server per request, JSON responses).',
    ),
    auth: setting(
      'MCP_AUTH',
      z.enum(['optional', 'required']).default('optional'),
      '`optional`: anonymous callers reach public tools; `required`: a bearer token is needed on /mcp (401 without).',
    ),
    toolsVisibility: setting(
      'MCP_TOOLS_VISIBILITY',
      z.enum(['caller', 'all']).default('caller'),
      '`caller`: tools/list shows the tools the caller can call (role and scopes); `all`: every tool.',
    ),
    publicUrl: setting('PUBLIC_URL', z.url({ protocol: /^https?$/ }).optional(), {
      description:
        'The externally visible base URL (scheme://host[:port]); the canonical MCP resource is `<PUBLIC_URL>/mcp` and its origin may call /mcp. The token command calls this URL when set.',
      shownDefault: 'taken from each request',
    }).transform((url) => url?.replace(/\/+$/, '')),
    allowedOrigins: setting('MCP_ALLOWED_ORIGINS', z.string().optional(), {
      description:
        'More origins allowed to call /mcp from a browser, comma-separated; same-origin is always allowed.',
      shownDefault: 'none',
    }).transform(list),
    allowedHosts: setting('MCP_ALLOWED_HOSTS', z.string().optional(), {
      description:
        'Host header values allowed on /mcp and /graphql, comma-separated; a public `HOST` needs it or `PUBLIC_URL`.',
      shownDefault: 'loopback names when bound to loopback',
    }).transform((value) => (value ? list(value) : undefined)),
    maxSessions: setting(
      'MCP_MAX_SESSIONS',
      int(1, 100000, 1000),
      'Most MCP sessions kept at once; at the cap the least recently used idle one gives way (503 if none is idle).',
    ),
    maxSessionsPerUser: setting(
      'MCP_MAX_SESSIONS_PER_USER',
      int(1, 100000, 20),
      "Most MCP sessions one signed-in user may hold at once (capped by `MCP_MAX_SESSIONS`); a new one beyond closes the user's least recently used idle session (429 only when all of them are busy).",
    ),
    maxSessionsPerAddress: setting(
      'MCP_MAX_SESSIONS_PER_ADDRESS',
      int(1, 100000, 10),
      'Most MCP sessions anonymous callers from one client address may hold at once (capped by `MCP_MAX_SESSIONS`); likewise beyond.',
    ),
    sessionIdleMs: setting(
      'MCP_SESSION_IDLE_SECONDS',
      int(1, 86400, 900),
      'A session unused for this many seconds is closed.',
    ).transform(seconds),
    resumeWindowMs: setting(
      'MCP_RESUME_WINDOW_SECONDS',
      int(1, 3600, 60),
      'How long, in seconds, a cut tools/call response stream of a 2025 session can be resumed (GET + Last-Event-ID).',
    ).transform(seconds),
    elicitationTimeoutMs: setting(
      'MCP_ELICIT_TIMEOUT_SECONDS',
      int(1, 3600, 300),
      "How long, in seconds, a 2025 session's tools/call waits for its user's answer to a confirmation asked by elicitation; then it acts on nothing. As long as a two-step confirmationToken lives by default.",
    ).transform(seconds),
    toolTimeoutMs: setting(
      'MCP_TOOL_TIMEOUT_MS',
      int(100, 120000, 10000),
      'Default deadline of one tool call, in milliseconds (per tool: `timeoutMs` in `tools.json`).',
    ),
    resultMaxChars: setting(
      'MCP_RESULT_MAX_CHARS',
      int(500, 10000000, 40000),
      'Longest structuredContent of a tool answer, in characters of JSON (the text block repeats it): a list answer over it is cut at a page boundary with a `truncated` marker naming the arguments for the rest.',
    ),
    schemaTools: setting(
      'MCP_SCHEMA_TOOLS',
      z.enum(['off', 'read', 'write']).default('off'),
      'The [schema tools](mcp.md#schema-tools) (searchSchema, validateGraphQL, executeGraphQL) for tokens with `graphql:execute`: `off`, `read` (queries only) or `write` (mutations too, with the scopes their fields need).',
    ),
    maxArgumentDepth: setting(
      'MCP_MAX_ARGUMENT_DEPTH',
      int(4, 1000, 64),
      "Deepest nesting of a JSON-RPC message's params (tool arguments included); deeper is -32602.",
    ),
    directToolCalls: setting('MCP_DIRECT_TOOL_CALLS', z.enum(['on', 'off']).default('on'), {
      description:
        "`on`: a plain tools/call (stateless 2025 and 2026-07-28; no progressToken) is answered on the lean path, without the SDK's transport round trip, with the same answer; `off`: every /mcp request goes through the SDK.",
      see: 'mcp.md#the-lean-path',
    }).transform((value) => value === 'on'),
  }),
).transform((m) => ({
  ...m,
  // A per-principal cap above the global one would be no cap at all.
  maxSessionsPerUser: Math.min(m.maxSessionsPerUser, m.maxSessions),
  maxSessionsPerAddress: Math.min(m.maxSessionsPerAddress, m.maxSessions),
}));
