/**
 * The SDK's classification of a 2026-07-28 request (one whose `_meta` carries the envelope claim), without
 * its four zod parses per request (two failing ones among them, which build their errors): about 20 µs
 * of a tools/call's CPU in a CPU profile.
 *
 * What the SDK's answer depends on, read from its classifyInboundRequest: that the body is a JSON-RPC
 * request its strict schema accepts (checked here as for 2025 requests, in direct-tool-call.ts), and then
 * only on the method, the MCP-Protocol-Version and Mcp-Method headers and the `_meta` object (claim,
 * envelope validity, header/body agreement); nothing else in params is read. So the SDK is asked once
 * per distinct (method, headers, `_meta`), with a body holding only those, and a modern-request answer
 * is kept; any other answer (a refusal, a 2025 route) is never kept, and the SDK classifies that body
 * itself every time. Clients send the same envelope on every call, so the SDK is asked about once per
 * client.
 */
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { CallHeaders, Classification } from './direct-tool-call.js';
import { isPlainObject } from '../is-plain-object.js';

type ModernRoute = Extract<Classification, { kind: 'modern'; messageKind: 'request' }>;

/**
 * Distinct envelopes kept: a few per client kind. When full, all are forgotten (a Map, cheaper to read
 * than an LRU, whose every hit reorders it): an attacker's variety only costs the SDK's parses again.
 */
const MAX_KEPT = 512;
/** A longer key (a large `_meta`) is not kept: the cache's memory stays bounded (about 1 MiB). */
const MAX_KEY_LENGTH = 2048;

const verdicts = new Map<string, ModernRoute['classification']>();

/**
 * The SDK's classification of `message`, for a body already known to pass the SDK's strict JSON-RPC
 * request shape (jsonrpc, id, method as it requires; no other member) whose params carry the envelope
 * claim; undefined when the body is not such a request (the caller asks the SDK).
 */
export function classifyModernRequest(
  message: { method: string; params?: unknown },
  headers: CallHeaders,
): Classification | undefined {
  const { method, params } = message;
  // initialize reads params.protocolVersion too: left to the SDK.
  if (method === 'initialize' || !isPlainObject(params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || !(PROTOCOL_VERSION_META_KEY in meta)) return undefined;
  // The body came from JSON.parse: its JSON text says all there is to say about it (but for a number
  // too large to be finite, which both it and null write as null; no `_meta` field the SDK reads tells
  // them apart: a progressToken refuses both).
  const key = JSON.stringify([method, headers.protocolVersion ?? null, headers.mcpMethod ?? null, meta]);
  let classification = verdicts.get(key);
  if (classification === undefined) {
    const probe = { jsonrpc: '2.0', id: 0, method, params: { _meta: meta } };
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.mcpMethod,
      mcpNameHeader: headers.mcpName,
      body: probe,
    });
    if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
    classification = route.classification;
    if (key.length <= MAX_KEY_LENGTH) {
      if (verdicts.size >= MAX_KEPT) verdicts.clear();
      verdicts.set(key, classification);
    }
  }
  // The caller checked the rest of the request's shape (see above); the SDK's probe checked `_meta`.
  const request = message as ModernRoute['message'];
  return { kind: 'modern', messageKind: 'request', message: request, classification: { ...classification } };
}
