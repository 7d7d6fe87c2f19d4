/**
 * The Express face of the lean tools/call path (src/mcp/direct-tool-call.ts): after our guards have
 * parsed and checked the request, a plain tools/call is answered here, as JSON, and every other request
 * is left to the SDK. (A 2025 session's POST is answered in the SDK's SSE framing by
 * session-tool-call.ts.) The call is abandoned when the client goes away before its answer (a 2026-07-28
 * client cancels that way), and through `controller` by whoever else may cancel it (2025 stateless
 * mode's notifications/cancelled).
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  answerDirectToolCall,
  isDirectToolCall,
  type CallHeaders,
  type Classification,
  type DirectCall,
  type Era,
} from '../mcp/direct-tool-call.js';
import type { McpServerDependencies } from '../mcp/mcp-server.js';
import type { ResponseWithLocals } from './locals.js';

/** Node's request as our guards leave it: the verified identity (or none) as the SDK's `auth`. */
export type McpRequest = IncomingMessage & { auth?: AuthInfo };

export interface DirectAnswerOptions {
  /** Aborts the call (it is also aborted when the client disconnects); one is made when absent. */
  controller?: AbortController;
  /** The request's headers and the SDK's classification of it, when the caller has them already. */
  headers?: CallHeaders;
  classification?: Classification;
  sessionId?: string;
}

/** Answers the request if it is a plain tools/call (resolving true); false leaves it to the SDK. */
export type DirectToolCalls = (
  req: McpRequest,
  res: ResponseWithLocals,
  era: Era,
  options?: DirectAnswerOptions,
) => Promise<boolean>;

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The headers the SDK's transports and classification read. */
export function callHeadersOf(req: IncomingMessage): CallHeaders {
  return {
    accept: headerOf(req, 'accept'),
    contentType: headerOf(req, 'content-type'),
    protocolVersion: headerOf(req, 'mcp-protocol-version'),
    mcpMethod: headerOf(req, 'mcp-method'),
    mcpName: headerOf(req, 'mcp-name'),
  };
}

export function directToolCalls(server: McpServerDependencies, enabled: boolean): DirectToolCalls {
  return async (req, res, era, options = {}) => {
    const message = res.locals.message as DirectCall['message'];
    const direct =
      enabled &&
      isDirectToolCall(message, era, options.headers ?? callHeadersOf(req), options.classification);
    if (!direct) return false;
    // A 2026-07-28 client may be asked to confirm through input_required, which only the SDK's path
    // answers (its requestState and the result's encoding are the SDK's): such a tool goes there.
    if (era === 'modern' && server.catalogue.current().byName.get(message.params.name)?.confirm) return false;
    const controller = options.controller ?? new AbortController();
    // 'close' also follows a normal answer; only one before the answer was written is a disconnect.
    res.once('close', () => {
      if (!res.writableEnded) controller.abort(new Error('The client disconnected'));
    });
    const text = await answerDirectToolCall(server, {
      message,
      era,
      authInfo: req.auth,
      signal: controller.signal,
      sessionId: options.sessionId,
    });
    if (res.writableEnded || res.destroyed) return true;
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      .end(text);
    return true;
  };
}
