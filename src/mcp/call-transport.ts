/**
 * The SDK's Node transport, serving one request, that says when the response to that request has gone
 * out (stored in the event store, when there is one, and written to the live stream if it is still
 * there). A session call's server lives until then, not until its connection closes: a cut stream is
 * not a cancellation (2025-11-25), and the call's response must land in the event store for a resume.
 */
import {
  NodeStreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/node';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

type SendOptions = Parameters<NodeStreamableHTTPServerTransport['send']>[1];

export class CallTransport extends NodeStreamableHTTPServerTransport {
  constructor(
    options: StreamableHTTPServerTransportOptions,
    private readonly onSent: (message: JSONRPCMessage) => void,
  ) {
    super(options);
  }

  override async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    await super.send(message, options);
    this.onSent(message);
  }
}
