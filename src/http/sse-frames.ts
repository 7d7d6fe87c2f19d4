/**
 * Server-sent events on /mcp, framed byte for byte as the SDK's Streamable HTTP transport frames them
 * (its `writeSSEEvent`, `writePrimingEvent` and keepalive), so a stream we write ourselves (a lean
 * session call, a resumed stream, the standalone GET stream) cannot be told from one the SDK writes.
 */

/**
 * The SDK's SSE response headers, named and ordered as it writes them (a web Headers object's order).
 * A session call's answer carries no Mcp-Session-Id: the SDK's per-request transport there has none.
 */
export const SSE_HEADERS = {
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'content-type': 'text/event-stream',
  'x-accel-buffering': 'no',
};

/** An SSE comment on an open stream, so idle proxies keep it. */
export const KEEPALIVE_FRAME = ': keepalive\n\n';

/** A JSON-RPC message event; `json` is the message already serialized. */
export function messageFrame(json: string, id?: string): string {
  return `event: message\n${id ? `id: ${id}\n` : ''}data: ${json}\n\n`;
}

/**
 * The priming event (2025-11-25, Streamable HTTP "Resumability"): an id and empty data, so a client
 * whose stream is cut before anything else came can resume from it, and the reconnection delay.
 */
export function primingFrame(id: string, retryMs: number): string {
  return `id: ${id}\nretry: ${retryMs}\ndata: \n\n`;
}
