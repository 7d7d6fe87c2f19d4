/**
 * The lean tools/call path's HTTP writers (the call itself is src/mcp/direct-tool-call.ts, which decides
 * which calls qualify and runs them): after our guards have parsed and checked the request, a plain
 * tools/call is answered here and every other request is left to the SDK.
 *
 * `directToolCalls` answers stateless and 2026-07-28 calls as JSON. The call is abandoned when the
 * client goes away before its answer (a 2026-07-28 client cancels that way), and through `controller`
 * by whoever else may cancel it (2025 stateless mode's notifications/cancelled).
 *
 * `sessionToolCalls` answers a 2025 session's plain tools/call once the session was found, checked and
 * held (session-post.ts), instead of a server and transport built for it. The answer is the SDK's SSE
 * stream byte for byte, ids aside: its headers, the priming event (2025-11-25) with `retry`, then
 * `event: message` with an `id:` and the response (test/mcp/direct-tool-call.test.ts compares both
 * paths). Everything else about the call holds as on the SDK's path: `notifications/cancelled` ends it
 * (from this replica or another), a cut stream is not a cancellation (the call runs on, 2025-11-25), the
 * session stays busy until the call ended and its connection closed, and a cut stream resumes with
 * Last-Event-ID on any replica.
 *
 * What the lean path stores (shared-state/event-store.ts, LeanCallStream): the stream's record and
 * lease when the call starts, so a follower anywhere can wait for it, or answer that its replica
 * stopped; the response only if the client went away before the response was written out in full. A
 * response a live stream delivered is not stored, and the record is dropped: the stream was not cut, so
 * nothing in it can be asked for again (the spec's replay is of "messages that would have been sent
 * ... on the stream that was disconnected"). That keeps nothing per call in memory and costs Redis a
 * small delete instead of the response (two round trips per call as on the SDK's path, neither awaited
 * before the answer goes out). The one case it gives up: a connection lost after the last byte left this
 * process but before the client read it; that resume is told the stream is unknown (a 400), as it would
 * be once any grace ran out.
 *
 * A tool that asks for confirmation, called by a client that declared elicitation, goes to the SDK (the
 * elicitation channel is the SDK's); so does anything direct-tool-call.ts does not take (progress, tasks,
 * requests the SDK's transport would refuse).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { asksByElicitation } from '../mcp/confirm-call.js';
import {
  answerDirectToolCall,
  isDirectToolCall,
  type CallHeaders,
  type Classification,
  type DirectCall,
  type Era,
} from '../mcp/direct-tool-call.js';
import type { McpServerDependencies } from '../mcp/mcp-server.js';
import { callKey } from '../shared-state/cancellation-bus.js';
import type { SessionHold, SessionRecord } from '../shared-state/session-store.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { watchClose } from './close-watch.js';
import type { ResponseWithLocals } from './locals.js';
import { KEEPALIVE_FRAME, messageFrame, primingFrame, SSE_HEADERS } from './sse-frames.js';

/** Node's request as our guards leave it: the verified identity (or none) as the SDK's `auth`. */
export type McpRequest = IncomingMessage & { auth?: AuthInfo };

interface DirectAnswerOptions {
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

export interface SessionToolCallOptions {
  /** MCP_DIRECT_TOOL_CALLS. */
  enabled: boolean;
  /** The reconnection delay the priming event announces. */
  retryIntervalMs: number;
  /** SSE comments while the call runs (the SDK's interval). */
  keepaliveMs: number;
}

/** A POST on a session that was found, checked against its owner and is held busy (node's objects). */
interface SessionRequest {
  req: McpRequest;
  res: ServerResponse;
  message: unknown;
  sessionId: string;
  record: SessionRecord;
  hold: SessionHold;
}

export interface SessionToolCalls {
  /** Answers the request if it is a plain tools/call (resolving true); false leaves it to the SDK. */
  answer(request: SessionRequest): Promise<boolean>;
}

/** The SDK sends the priming event to clients whose revision allows empty SSE data (2025-11-25 on). */
const primes = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-11-25';

export function sessionToolCalls(
  deps: McpServerDependencies,
  state: Pick<SharedState, 'events' | 'cancellations'>,
  options: SessionToolCallOptions,
): SessionToolCalls {
  const { events, cancellations } = state;

  const mayTake = (req: McpRequest, message: unknown): message is DirectCall['message'] =>
    options.enabled && isDirectToolCall(message as DirectCall['message'], 'legacy', callHeadersOf(req));
  const takes = (
    req: McpRequest,
    message: unknown,
    record: SessionRecord,
  ): message is DirectCall['message'] => {
    if (!mayTake(req, message)) return false;
    const { name } = message.params;
    return !asksByElicitation(deps.catalogue.current().byName.get(name), record.clientCapabilities);
  };

  const answer = async ({ req, res, message, sessionId, record, hold }: SessionRequest) => {
    if (!takes(req, message, record)) return false;
    const requestId = message.id;
    const stream = events.forLeanCall({ sessionId, requestId, method: 'tools/call' });
    const controller = new AbortController();
    const life = watchClose(res);
    // The call runs on after a cut: its session's hold stays live until the call settled.
    const working = life.work();
    /** The response's JSON once the call answered. */
    let response: string | undefined;
    /** Answered, cancelled or failed: nothing more will be written by the call. */
    let settled = false;
    let closed = false;
    const keepalive = setInterval(() => res.write(KEEPALIVE_FRAME), options.keepaliveMs);
    keepalive.unref();
    // The session is busy until the call ended and its connection closed, as on the SDK's path.
    const releaseWhenDone = () => {
      if (settled && closed) hold.release();
    };
    const settle = () => {
      settled = true;
      working();
      unregister();
      clearInterval(keepalive);
    };
    const unregister = cancellations.register(callKey(sessionId, requestId), () => {
      if (settled) return;
      settle();
      controller.abort('cancelled');
      // No response will come: a follower answers the abandoned-call error, this stream just ends.
      stream.finish();
      res.end();
      releaseWhenDone();
    });
    life.onClose(() => {
      closed = true;
      // Written out in full: the stream was not cut. Else the client may lack it: keep it for a resume.
      if (response !== undefined) {
        if (res.writableFinished) stream.forget();
        else stream.store(response);
      }
      releaseWhenDone();
    });

    res.writeHead(200, SSE_HEADERS);
    if (primes(req.headers['mcp-protocol-version'] as string | undefined))
      res.write(primingFrame(stream.primingEventId, options.retryIntervalMs));

    let json: string;
    try {
      json = await answerDirectToolCall(deps, {
        message,
        era: 'legacy',
        authInfo: req.auth,
        signal: controller.signal,
        sessionId,
      });
    } catch (error) {
      if (!settled) {
        settle();
        stream.finish();
      }
      throw error;
    }
    if (settled) return true;
    settle();
    // A cut stream is not a cancellation (2025-11-25): the call ran on, its response is stored.
    if (closed) stream.store(json);
    else {
      response = json;
      res.end(messageFrame(json, stream.responseEventId));
    }
    releaseWhenDone();
    return true;
  };

  return { answer };
}
