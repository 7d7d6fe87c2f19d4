/**
 * A POST on a 2025 session: found, checked against its owner and held (looked up once per request),
 * then a cancellation or a client's response is taken, a plain tools/call goes to the lean path and
 * anything else to a fresh SDK server and transport. A POST without a session must be initialize.
 */
import type { ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { CallTransport } from '../mcp/call-transport.js';
import { asksByElicitation } from '../mcp/confirm-call.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import type { Elicit } from '../mcp/session-elicitation.js';
import { callKey } from '../shared-state/cancellation-bus.js';
import { isResponseTo } from '../shared-state/event-store.js';
import type { SessionHold, SessionRecord } from '../shared-state/session-store.js';
import type { McpRequest } from './direct-tool-calls.js';
import { watchClose } from './close-watch.js';
import {
  isCancellation,
  isClientResponse,
  responseProblem,
  type JsonRpcMessage,
} from './json-rpc-message.js';
import type { ResponseWithLocals } from './locals.js';
import type { McpPostHandler } from './route-by-era.js';
import { refusalOf } from '../transport-refusals.js';
import { writeMcpRefusal } from './write-refusal.js';
import {
  carrySessionId,
  RETRY_INTERVAL_MS,
  sessionStateUnavailable,
  type SessionContext,
} from './session-context.js';
import type { SessionInitialize } from './session-initialize.js';

/**
 * How far a session POST's steps got: the session found, checked against its owner and held (the hold
 * passes on with it), or a refusal to answer.
 */
type SessionOutcome =
  | { record: SessionRecord; hold: SessionHold }
  | { refusal: 'unknown' }
  | { refusal: 'unavailable'; error: unknown }
  | { refusal: 'invalid-response'; problem: string };

export interface SessionPost {
  post: McpPostHandler;
}

export function sessionPost(context: SessionContext, initialize: SessionInitialize): SessionPost {
  const { options, subjectOf, elicitation, leanCall } = context;
  const { sessions, events, cancellations } = options.state;

  const serve = async (
    req: McpRequest,
    res: ServerResponse,
    message: JsonRpcMessage,
    record: SessionRecord,
    hold: SessionHold,
  ) => {
    const sessionId = record.id;
    carrySessionId(req, sessionId);
    const life = watchClose(res);
    // A call runs on after its stream was cut: its session stays held until it ended.
    const working = life.work();
    const requestId = message.id;
    const call =
      message.method === 'tools/call' && requestId !== undefined
        ? events.forCall(
            { sessionId, requestId, method: message.method },
            () => !res.writableEnded && !res.destroyed,
          )
        : undefined;
    // A tool that asks first, called by a client that declared elicitation: its user is asked on this
    // call's stream (the rule a lean path for session calls must keep: such a call is served here).
    const tool = call && options.server.catalogue.current().byName.get(String(message.params?.name));
    const elicit: Elicit | undefined =
      call && asksByElicitation(tool, record.clientCapabilities)
        ? elicitation.forCall(sessionId, (sent) => transport.send(sent, { relatedRequestId: requestId }))
        : undefined;
    const server = createMcpServer(options.server, {
      listChanged: options.server.catalogue.watching,
      elicit,
    });
    let unregister = () => undefined as void;
    let finished = false;
    let responded = false;
    let closed = false;
    const releaseWhenDone = () => {
      if (finished && closed) hold.release();
    };
    // The end of the request's life: its response went out, or it was cancelled, or (not a call) its
    // connection closed. Closing the server aborts a handler still running.
    const finish = () => {
      if (finished) return;
      finished = true;
      working();
      unregister();
      call?.finish();
      void server.close();
      releaseWhenDone();
    };
    const transport = new CallTransport(
      {
        sessionIdGenerator: undefined,
        eventStore: call,
        retryInterval: call ? RETRY_INTERVAL_MS : undefined,
      },
      (sent) => {
        if (requestId === undefined || !isResponseTo(sent, requestId)) return;
        responded = true;
        finish();
      },
    );
    if (requestId !== undefined) unregister = cancellations.register(callKey(sessionId, requestId), finish);
    life.onClose(() => {
      closed = true;
      // A cut stream is not a cancellation (2025-11-25): a call runs on and its response is stored.
      if (!call) finish();
      // Its response written out in full, the stream was not cut: nothing of it will be asked for.
      else if (responded && res.writableFinished) call.forget();
      releaseWhenDone();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    } catch (error) {
      // The SDK failed before any response: nothing will finish the call, so end it here (the hold
      // is released once the connection closes) and let the route's error handler answer.
      finish();
      throw error;
    }
  };

  /** The session a POST names, found, checked against its owner and held; looked up once per request. */
  const lookUp = async (
    req: McpRequest,
    res: ResponseWithLocals,
    sessionId: string,
  ): Promise<SessionOutcome> => {
    try {
      return (await sessions.use(sessionId, subjectOf(res), watchClose(res).live)) ?? { refusal: 'unknown' };
    } catch (error) {
      return { refusal: 'unavailable', error };
    }
  };

  /**
   * A POST naming a session: it looks the session up, answers a cancellation or a client's response, a
   * plain tools/call on the lean path and anything else through the SDK. What it resolves with is a
   * refusal for `post` to answer.
   */
  const postOnSession = async (
    req: McpRequest,
    res: ResponseWithLocals,
    message: JsonRpcMessage,
    sessionId: string,
  ): Promise<SessionOutcome | undefined> => {
    // Watched before the lookup is awaited.
    watchClose(res);
    const found = await lookUp(req, res, sessionId);
    if ('refusal' in found) return found;
    const { record, hold } = found;
    if (isCancellation(message)) {
      // Only a call of this session (whose owner this caller is) can be named: the key holds the session.
      cancellations.cancel(callKey(sessionId, message.params?.requestId));
      hold.release();
      res.statusCode = 202;
      res.end();
      return;
    }
    if (isClientResponse(message)) {
      hold.release();
      const problem = responseProblem(message);
      if (problem) return { refusal: 'invalid-response', problem };
      // Likewise only a question of this session can be answered. An answer to none (unknown, already
      // answered, settled, another session's) is accepted and dropped, as the transport spec allows.
      const answer = message as {
        id: unknown;
        result?: Record<string, unknown>;
        error?: { message?: unknown };
      };
      elicitation.answer(
        sessionId,
        answer.id,
        answer.result
          ? { result: answer.result }
          : { error: String(answer.error?.message ?? '').slice(0, 200) },
      );
      res.statusCode = 202;
      res.end();
      return;
    }
    // A cancellation or an answer the client sent is taken above even if it went away since; a request
    // whose client went away during the lookup is answered to nobody.
    if (watchClose(res).closed) {
      hold.release();
      return;
    }
    // The SDK reads the revision from this header (for instance to decide on the priming event).
    req.headers['mcp-protocol-version'] ??= record.protocolVersion;
    if (await leanCall.answer({ req, res, message, sessionId, record, hold })) return;
    await serve(req, res, message, record, hold);
  };

  const post: McpPostHandler = async (req, res, next) => {
    try {
      const message = res.locals.message as JsonRpcMessage;
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      if (sessionId === undefined) {
        if (!isInitializeRequest(message)) {
          return writeMcpRefusal(res, refusalOf('mcp.session-id-required-initialize'));
        }
        return await initialize(req, res, message);
      }
      const left = await postOnSession(req, res, message, sessionId);
      if (left === undefined || !('refusal' in left)) return;
      if (left.refusal === 'unavailable') return sessionStateUnavailable(res, left.error);
      if (left.refusal === 'unknown')
        return writeMcpRefusal(res, refusalOf('mcp.session-not-found-initialize'));
      writeMcpRefusal(res, refusalOf('mcp.invalid-response', { problem: left.problem }));
    } catch (error) {
      next(error);
    }
  };

  return { post };
}
