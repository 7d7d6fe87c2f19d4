/**
 * Resource not found, as each revision spells it: 2025-11-25 says -32002 (server/resources, "Error
 * Handling"), 2026-07-28 says -32602 with `data.uri` (SEP-2164). The SDK sends -32602 on both, so on a
 * 2025-era connection this turns such an error (a -32602 whose data is exactly `{uri}`, the SDK's own
 * rule for recognising one) back into -32002 as the transport sends it.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

const RESOURCE_NOT_FOUND_2025 = -32002;

function isResourceNotFound(message: JSONRPCMessage): boolean {
  if (!('error' in message) || message.error.code !== -32602) return false;
  const data = message.error.data as Record<string, unknown> | undefined;
  return !!data && typeof data.uri === 'string' && Object.keys(data).length === 1;
}

export function withLegacyErrorCodes<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) =>
    send(
      isResourceNotFound(message) && 'error' in message
        ? { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND_2025 } }
        : message,
      options,
    );
  return transport;
}
