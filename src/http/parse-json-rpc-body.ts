/**
 * The JSON-RPC checks of a /mcp POST body, shared by the Express chain and the node:http front, and the
 * protocol revisions this endpoint speaks.
 */
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { checkRequestParams, hasEnvelopeClaim, nestsDeeperThan } from '../mcp/check-request-params.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from '../mcp/mcp-server.js';
import type { JsonRpcErrorOptions } from './send-json-rpc-error.js';

/**
 * The revisions this server speaks: 2026-07-28 (no sessions), 2025-11-25 and 2025-06-18 (docs/mcp.md, Protocol revisions), plus
 * 2025-03-26, whose transport is the same Streamable HTTP and which the official conformance suite still
 * sends on some requests.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];

export type ParsedBody =
  | { message: object }
  | { refusal: [status: number, code: number, message: string, options?: JsonRpcErrorOptions] };

export const versionRefusal = (version: string): [number, number, string] => [
  400,
  -32000,
  `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
];

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
    return { refusal: [415, -32000, 'Unsupported Media Type: Content-Type must be application/json'] };
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { refusal: [400, -32700, 'Parse error: the body is not valid JSON'] };
  }
  if (Array.isArray(message)) {
    return {
      refusal: [
        400,
        -32600,
        'Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18)',
      ],
    };
  }
  if (typeof message !== 'object' || message === null) {
    return { refusal: [400, -32600, 'Invalid Request: the body must be a JSON-RPC message object'] };
  }
  if (unsupportedVersion !== undefined && !hasEnvelopeClaim(message)) {
    return { refusal: versionRefusal(unsupportedVersion) };
  }
  const { id, method } = message as { id?: unknown; method?: unknown };
  if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') {
    const problem = checkRequestParams(message, maxDepth);
    // A request's error is a JSON-RPC response to it: HTTP 200, the request's id.
    if (problem) return { refusal: [200, -32602, problem, { id }] };
  }
  // Anything else nested that deep (a response's result, a notification's params) would overflow the
  // SDK's parser, whose error names the overflow.
  if (nestsDeeperThan(message, maxDepth + 2)) {
    return {
      refusal: [400, -32600, `Invalid Request: the message is nested deeper than ${maxDepth} levels`],
    };
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
