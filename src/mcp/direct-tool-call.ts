/**
 * The lean path for the one hot request, a plain `tools/call`: answered here, without the SDK's
 * web-standard transport round trip (a Request and a Response object, the hono adapter, a server and
 * transport built per request, zod parses of the message and of the result). It answers only what the
 * SDK would hand, unchanged, to our own tools/call handler (mcp-server.ts's `callCuratedTool`, which this
 * calls too): a well-formed JSON-RPC request of a revision we serve, with no progressToken (progress is
 * the SDK's to stream) and no task, whose transport checks the SDK would pass. Anything else, including
 * every request the SDK would refuse, goes to the SDK, which then owns its answer. The answer is the
 * SDK's byte for byte: the same JSON-RPC envelope and key order, `-32602` for an unknown tool, and for
 * 2026-07-28 `resultType` and the serverInfo `_meta` the SDK stamps on results (test/mcp/direct-tool-call
 * compares both paths).
 */
import {
  classifyInboundRequest,
  isInputRequiredResult,
  isJsonContentType,
  ProtocolError,
  SERVER_INFO_META_KEY,
  type AuthInfo,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import { classifyModernRequest } from './classify-modern-request.js';
import { isSharedToolResult, keptStructuredJson } from './to-call-tool-result.js';
import {
  callCuratedTool,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  SERVER_INFO,
  type McpServerDependencies,
  type ToolCallRequest,
} from './mcp-server.js';
import { isPlainObject } from '../is-plain-object.js';

/** The request headers the SDK's transport checks, as they arrived (undefined when absent). */
export interface CallHeaders {
  accept?: string;
  contentType?: string;
  protocolVersion?: string;
  mcpMethod?: string;
  mcpName?: string;
}

/** The revision a request was classified under (route-by-era.ts decides, as the SDK does). */
export type Era = 'legacy' | 'modern';

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/** How the SDK classifies an inbound request (route-by-era.ts computes it once per request). */
export type Classification = ReturnType<typeof classifyInboundRequest>;

/** The members the SDK's JSON-RPC request schema allows (it is strict: any other key fails it). */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** Whether the SDK's strict JSON-RPC request schema would accept this body, `params._meta` aside. */
function isRequestShape(message: unknown): message is Message & { method: string } {
  if (!isPlainObject(message)) return false;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  const { id, method, params } = message;
  return (
    message.jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    typeof method === 'string' &&
    (params === undefined || isPlainObject(params))
  );
}

/**
 * Whether the SDK would classify this POST as a 2025-era request without a claim ("no-claim"), decided
 * without its zod parses (three per request, two of them failing and building their errors): a JSON-RPC
 * request its strict schema accepts, not initialize, whose params have no `_meta` (so no envelope claim)
 * and whose MCP-Protocol-Version header is absent or a 2025 revision. Anything else is the SDK's to say.
 */
function isPlainLegacyRequest(message: Message & { method: string }, headers: CallHeaders): boolean {
  const { protocolVersion } = headers;
  if (protocolVersion !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(protocolVersion)) return false;
  const { params } = message;
  return message.method !== 'initialize' && (params === undefined || !('_meta' in (params as object)));
}

/**
 * The SDK's classification of a POST's parsed body and standard headers. A plain 2025 request and a
 * 2026-07-28 request whose envelope the SDK already accepted (classify-modern-request.ts) are answered
 * here; anything else by the SDK.
 */
export function classify(message: unknown, headers: CallHeaders): Classification {
  if (isRequestShape(message)) {
    if (isPlainLegacyRequest(message, headers)) {
      const { protocolVersion } = headers;
      return {
        kind: 'legacy',
        reason: 'no-claim',
        ...(protocolVersion !== undefined ? { requestedVersion: protocolVersion } : {}),
      };
    }
    const modern = classifyModernRequest(message, headers);
    if (modern) return modern;
  }
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.mcpMethod,
    mcpNameHeader: headers.mcpName,
    body: message,
  });
}

/** RFC 9110 optional whitespace around a field value, as the SDK strips it before comparing. */
const stripOws = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * Whether the SDK would deliver this message unchanged to our tools/call handler: a JSON-RPC request
 * (`jsonrpc: "2.0"`, a string or integer id; params already passed checkRequestParams) with nothing our
 * lean path does not do (progress, tasks), on an exchange whose transport checks pass.
 */
export function isDirectToolCall(
  message: Message,
  era: Era,
  headers: CallHeaders,
  classification?: Classification,
): boolean {
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call') return false;
  if (typeof id !== 'string' && !Number.isInteger(id)) return false;
  if (!isPlainObject(params) || typeof params.name !== 'string' || 'task' in params) return false;
  // A confirmation round's answer (2026-07-28 input_required): the SDK verifies its requestState.
  if ('requestState' in params || 'inputResponses' in params) return false;
  const meta = params._meta;
  if (meta !== undefined && (!isPlainObject(meta) || meta.progressToken !== undefined)) return false;
  if (era === 'legacy') {
    // The 2025 transport's own checks (406, 415, 400 for a revision it does not speak).
    const { accept = '', protocolVersion } = headers;
    return (
      accept.includes('application/json') &&
      accept.includes('text/event-stream') &&
      isJsonContentType(headers.contentType ?? '') &&
      (protocolVersion === undefined || LEGACY_PROTOCOL_VERSIONS.includes(protocolVersion))
    );
  }
  // 2026-07-28: the classification (envelope, header/body agreement) must route it as a modern request
  // of the revision we serve, and the standard headers be present and agree with the body (the SDK
  // answers -32020 otherwise). An encoded Mcp-Name (=?base64?...?=) is left to the SDK to decode.
  const { protocolVersion, mcpMethod, mcpName } = headers;
  if (protocolVersion === undefined || mcpMethod === undefined || mcpName === undefined) return false;
  if (stripOws(mcpName) !== params.name) return false;
  const route = classification ?? classify(message, headers);
  return (
    route.kind === 'modern' &&
    route.messageKind === 'request' &&
    route.classification.revision === MODERN_PROTOCOL_VERSION
  );
}

export interface DirectCall {
  message: Message & { id: string | number; params: ToolCallRequest['params'] };
  era: Era;
  authInfo: AuthInfo | undefined;
  signal: AbortSignal;
  sessionId?: string;
}

/** The serialized `result` member of shared tool results, per era (they are served many times). */
const serialized = { legacy: new WeakMap<object, string>(), modern: new WeakMap<object, string>() };

/** The `result` member as JSON: 2026-07-28 results say they are complete and name the server (the SDK's encode step). */
function resultJson(result: CallToolResult, era: Era): string {
  const shared = isSharedToolResult(result);
  const kept = shared ? serialized[era].get(result) : undefined;
  if (kept !== undefined) return kept;
  // Other `_meta` entries (an idempotent replay's marker) are kept, in place, as the SDK's stamp keeps them.
  const encoded =
    era === 'modern'
      ? { ...result, resultType: 'complete', _meta: { ...result._meta, [SERVER_INFO_META_KEY]: SERVER_INFO } }
      : result;
  const structuredJson = keptStructuredJson(result.structuredContent);
  const json =
    structuredJson === undefined
      ? JSON.stringify(encoded)
      : stringifyWith(encoded, 'structuredContent', structuredJson);
  if (shared) serialized[era].set(result, json);
  return json;
}

/** `JSON.stringify(object)` (a plain object), with the JSON of one member given: the same text. */
function stringifyWith(object: Record<string, unknown>, key: string, json: string): string {
  let text = '';
  for (const name of Object.keys(object)) {
    const member = name === key ? json : (JSON.stringify(object[name]) as string | undefined);
    // As JSON.stringify does, a member whose value has no JSON (undefined, a function) is left out.
    if (member !== undefined) text += `${text === '' ? '{' : ','}${JSON.stringify(name)}:${member}`;
  }
  return text === '' ? '{}' : `${text}}`;
}

/**
 * Runs a call `isDirectToolCall` accepted and returns the JSON-RPC response text the SDK would send
 * (key order included: a result is `{result, jsonrpc, id}`, an error `{jsonrpc, id, error}`).
 */
export async function answerDirectToolCall(deps: McpServerDependencies, call: DirectCall): Promise<string> {
  const { message } = call;
  try {
    const result = await callCuratedTool(deps, {
      params: message.params,
      id: message.id,
      authInfo: call.authInfo,
      sessionId: call.sessionId,
      signal: call.signal,
      // Two steps are what a 2025 client gets from the SDK path too; a 2026-07-28 call of a tool that
      // asks for confirmation never comes here (isDirectToolCall), as its client may get input_required.
      confirmation: { kind: 'two-step' },
    });
    // Only the input-required channel answers with a question, and it is never taken here.
    if (isInputRequiredResult(result)) throw new Error('input_required on the lean tools/call path');
    return `{"result":${resultJson(result, call.era)},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
  } catch (error) {
    // Only the unknown-tool refusal is thrown on purpose; callCuratedTool turns everything else into a
    // tool result, so anything that still escapes is a bug, and the caller answers it as one.
    if (!(error instanceof ProtocolError)) throw error;
    const { code, message: text, data } = error;
    return JSON.stringify({
      jsonrpc: '2.0',
      id: message.id,
      error: { code, message: text, ...(data !== undefined ? { data } : {}) },
    });
  }
}
