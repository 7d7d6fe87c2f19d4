/**
 * The JSON-RPC checks of a /mcp POST body (the JSON-RPC guard, mcp-guards.ts), and the protocol
 * revisions this endpoint speaks. Every refusal is the transport refusals' registry's.
 */
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { checkRequestParams, hasEnvelopeClaim, nestsDeeperThan } from '../mcp/check-request-params.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from '../mcp/mcp-server.js';
import { refusalOf } from '../transport-refusals.js';
import { withReply, type McpRefusal } from './write-refusal.js';

/**
 * The revisions this server speaks: 2026-07-28 (no sessions), 2025-11-25 and 2025-06-18 (docs/mcp.md, Protocol revisions), plus
 * 2025-03-26, whose transport is the same Streamable HTTP and which the official conformance suite still
 * sends on some requests.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

export type ParsedBody = { message: object } | { refusal: McpRefusal };

export const versionRefusal = (version: string): McpRefusal =>
  refusalOf('mcp.protocol-version-unsupported', {
    version,
    supported: SUPPORTED_PROTOCOL_VERSIONS.join(', '),
  });

/**
 * The JSON-RPC checks of a POST body: JSON errors are -32700, batches and non-objects -32600, a request
 * with malformed or over-deep params -32602, and an unsupported MCP-Protocol-Version header refused
 * unless the body claims a 2026-07-28 envelope (the SDK answers that one).
 */
export function parseJsonRpcBody(
  text: string,
  isJson: boolean,
  unsupportedVersion: string | undefined,
  maxDepth: number,
): ParsedBody {
  if (!isJson) {
    return { refusal: refusalOf('mcp.unsupported-media-type') };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { refusal: refusalOf('mcp.parse-error') };
  }
  if (Array.isArray(message)) {
    return { refusal: refusalOf('mcp.batch') };
  }
  if (typeof message !== 'object' || message === null) {
    return { refusal: refusalOf('mcp.not-a-message') };
  }
  if (unsupportedVersion !== undefined && !hasEnvelopeClaim(message)) {
    return { refusal: versionRefusal(unsupportedVersion) };
  }
  const { id, method } = message as { id?: unknown; method?: unknown };
  if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') {
    const problem = checkRequestParams(message, maxDepth);
    // A request's error is a JSON-RPC response to it: HTTP 200, the request's id.
    if (problem) return { refusal: withReply(refusalOf('mcp.invalid-params', { problem }), { id }) };
  }
  // Anything else nested that deep (a response's result, a notification's params) would overflow the
  // SDK's parser, whose error names the overflow.
  if (nestsDeeperThan(message, maxDepth + 2)) {
    return { refusal: refusalOf('mcp.nested-too-deep', { maxDepth }) };
  }
  // A client asking for a revision we do not speak is answered with ours (the spec's negotiation);
  // 2026-07-28 has no initialize, so a handshake always lands on a 2025 revision.
  // The method first: the SDK's guard parses the whole message with zod, on every request otherwise.
  if (
    (message as { method?: unknown }).method === 'initialize' &&
    isInitializeRequest(message) &&
    !LEGACY_PROTOCOL_VERSIONS.includes(message.params.protocolVersion)
  ) {
    message.params.protocolVersion = LEGACY_PROTOCOL_VERSIONS[0]!;
  }
  return { message };
}
