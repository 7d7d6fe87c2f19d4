/**
 * GraphQL over HTTP: graphql-http's spec-compliant core, wired to the one executor, behind a thin adapter
 * of our own so that every refusal it gives carries a classification (classify-http-error.ts).
 */
import type { IncomingMessage } from 'node:http';
import { getOperationAST, type ExecutionResult, type GraphQLError } from 'graphql';
import {
  createHandler,
  type OperationContext,
  type Request as GraphQLHttpRequest,
  type Response as GraphQLHttpResponse,
} from 'graphql-http';
import { createContext, type CallContext, type ContextDependencies } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import { operationOutcome } from '../graphql/operation-outcome.js';
import { checkDocument } from './check-document.js';
import { classifyHttpError } from './classify-http-error.js';
import { disconnectSignal } from './disconnect-signal.js';
import { localsOf, type ResponseWithLocals } from './locals.js';
import { rateLimitedResponse } from './rate-limited-response.js';

interface RequestContext {
  res: ResponseWithLocals;
}

/**
 * Mirrors graphql-http's media-type choice exactly: the first type named in Accept that it accepts wins,
 * with its charset (utf-8 when not given; graphql-response+json only as utf-8).
 */
function prefersGraphQLResponse(headers: GraphQLHttpRequest<unknown, unknown>['headers']): boolean {
  const accept =
    (typeof headers.get === 'function'
      ? headers.get('accept')
      : (headers as Record<string, string | undefined>).accept) || '*/*';
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return true;
    const json = mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*';
    if (json && (charset === 'charset=utf-8' || charset === 'charset=utf8')) return false;
  }
  return false;
}

/**
 * The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header): a Structured Field string,
 * so quoted, though a bare token is taken too. The executor checks its form; a header sent twice
 * arrives joined with ", " and fails that check.
 */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const raw = req.headers['idempotency-key'];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value === undefined) return undefined;
  const quoted = /^"(.*)"$/.exec(value.trim());
  return quoted ? quoted[1]! : value.trim();
}

/**
 * The response body of a shared result (the result cache's, frozen and served to many callers): the
 * JSON graphql-http would write for it (a result without errors is serialized as is), made once.
 */
const sharedBodies = new WeakMap<ExecutionResult, string>();
function sharedBody(result: ExecutionResult): string {
  let body = sharedBodies.get(result);
  if (body === undefined) sharedBodies.set(result, (body = JSON.stringify(result)));
  return body;
}

/** Observes each executed operation: its type, outcome class and duration. */
export type OperationObserver = (type: string, outcome: string, seconds: number) => void;

/**
 * The operation's half of the /graphql handler (graphql-handler.ts): the request begun and guarded, its
 * body read. It answers, or rejects with an error that is not the client's (the handler answers a 500).
 */
export type GraphQLRoute = (
  req: IncomingMessage,
  res: ResponseWithLocals,
  body: string | null,
) => Promise<void>;

export function graphqlRoute(
  executor: Executor,
  deps: ContextDependencies,
  observe?: OperationObserver,
): GraphQLRoute {
  const startedAt = new WeakMap<IncomingMessage, number>();
  const contextOf = (req: GraphQLHttpRequest<IncomingMessage, RequestContext>): OperationContext => {
    const { viewer, logger, requestId, clientAddress } = localsOf(req.context.res);
    // CallContext is a type without an index signature; graphql-http only passes it through.
    const signal = disconnectSignal(req.context.res);
    return createContext(deps, {
      viewer,
      logger,
      requestId,
      clientAddress,
      signal,
      idempotencyKey: idempotencyKeyOf(req.raw),
    }) as unknown as OperationContext;
  };
  const handle = createHandler<IncomingMessage, RequestContext, OperationContext>({
    schema: executor.schema,
    parse: executor.parse,
    validate: executor.validate,
    execute: executor.execute,
    formatError: executor.formatError,
    // Parse and validate here, where the caller is known, so a refused document counts against it.
    onSubscribe: async (req, params) => {
      const checked = await checkDocument(
        executor,
        deps.limits,
        params.query,
        localsOf(req.context.res),
        prefersGraphQLResponse(req.headers)
          ? 'application/graphql-response+json; charset=utf-8'
          : 'application/json; charset=utf-8',
      );
      if ('unchecked' in checked) return undefined;
      if ('answer' in checked) return checked.answer as GraphQLError[] | GraphQLHttpResponse;
      return {
        schema: executor.schema,
        document: checked.document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: contextOf(req),
      };
    },
    onOperation: (req, args, result) => {
      // Stripe's header for an answer that is the stored one of an earlier call with the same key.
      if ((args.contextValue as unknown as CallContext).execution.replayed)
        req.context.res.setHeader('Idempotent-Replayed', 'true');
      const started = startedAt.get(req.raw);
      if (observe && started !== undefined) {
        const type = getOperationAST(args.document, args.operationName)?.operation ?? 'unknown';
        observe(type, operationOutcome(result), (performance.now() - started) / 1000);
      }
      const limited = rateLimitedResponse(
        result,
        prefersGraphQLResponse(req.headers)
          ? 'application/graphql-response+json; charset=utf-8'
          : 'application/json; charset=utf-8',
      );
      if (limited) return limited;
      if (Object.isFrozen(result) && !result.errors) {
        const contentType = prefersGraphQLResponse(req.headers)
          ? 'application/graphql-response+json; charset=utf-8'
          : 'application/json; charset=utf-8';
        return [
          sharedBody(result),
          { status: 200, statusText: 'OK', headers: { 'content-type': contentType } },
        ];
      }
      // GraphQL over HTTP: a graphql-response+json reply without `data` (the request failed before
      // execution, e.g. variable coercion) MUST use a 4xx status; graphql-http answers 200 here.
      if (!('data' in result) && prefersGraphQLResponse(req.headers)) {
        return [
          JSON.stringify(result),
          {
            status: 400,
            statusText: 'Bad Request',
            headers: { 'content-type': 'application/graphql-response+json; charset=utf-8' },
          },
        ];
      }
      return undefined;
    },
    context: contextOf,
  });

  return async (req, res, body) => {
    startedAt.set(req, performance.now());
    const request: GraphQLHttpRequest<IncomingMessage, RequestContext> = {
      url: req.url ?? '/graphql',
      method: req.method ?? 'GET',
      headers: req.headers,
      // Read (bounded, decoded) by the handler; graphql-http parses it per the spec.
      body,
      raw: req,
      context: { res },
    };
    const [answer, init] = classifyHttpError(request.method, ...(await handle(request)));
    res.writeHead(init.status, init.statusText, init.headers as Record<string, string>).end(answer);
  };
}
