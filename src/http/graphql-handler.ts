/**
 * The one /graphql handler, graphql-http style: a plain function over node's request and response that
 * begins the request once (request id, access line, metrics, drain tracking), runs the endpoint's guard
 * list once (graphql-guards.ts), answers GraphiQL's page to a browser, and writes every answer itself,
 * refusals (from the transport refusals' registry) and unexpected failures (errorHandler's classified
 * 500) included. It is dispatched before Express (`dispatchPath`; app.ts has the measured reason) and
 * mounted in Express for the spellings Express also routes to it; nothing before it touches the request.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Logger } from '../logger.js';
import type { HostCheck } from './allowed-hosts.js';
import { readBearer } from './authenticate.js';
import type { DrainGate } from './drain-gate.js';
import { errorHandler } from './error-handlers.js';
import { sendGraphiQL, wantsGraphiQL } from './graphiql.js';
import { runGuards, type FactProducers } from './guard.js';
import { GRAPHIQL_AFTER, graphqlGuards, type BodyOutcome, type GraphQLFacts } from './graphql-guards.js';
import type { GraphQLRoute } from './graphql-route.js';
import { localsOf, type ResponseWithLocals } from './locals.js';
import type { Metrics } from './metrics.js';
import { hasBody, readRequestBody, type BodyLimits } from './read-body.js';
import { beginRequest } from './request-context.js';
import { writeGraphQLRefusal } from './write-refusal.js';

export interface GraphQLHandlerDependencies {
  logger: Logger;
  drain: Pick<DrainGate, 'phase' | 'track'>;
  metrics: Pick<Metrics, 'observeRequest'>;
  verifier: BearerVerifier;
  body: BodyLimits;
  hostCheck: HostCheck;
  /** The app's compiled `trust proxy` (TRUST_PROXY): whose X-Forwarded-For names the client. */
  trust: (address: string, hop: number) => boolean;
  /** Runs the operation once the request passed every guard. */
  route: GraphQLRoute;
  /** Serve GraphiQL's page to browsers (GRAPHIQL). */
  graphiql: boolean;
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The path of a request target, without its query string (which can carry GraphQL variables). */
const pathOf = (url = '/'): string => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

export function createGraphQLHandler(deps: GraphQLHandlerDependencies): NodeHandler {
  const guards = graphqlGuards(deps.hostCheck);
  const split = guards.findIndex((guard) => guard.name === GRAPHIQL_AFTER) + 1;
  const [headGuards, bodyGuards] = [guards.slice(0, split), guards.slice(split)];
  // The one body reader (plain, chunked or decoded; a refused body is discarded for a bound).
  const readBodyOf = (req: IncomingMessage): Promise<BodyOutcome> =>
    hasBody(req.headers) ? readRequestBody(req, deps.body) : Promise.resolve({ text: null });
  const produce: FactProducers<GraphQLFacts> = {
    draining: () => deps.drain.phase() === 'refusing',
    body: readBodyOf,
    bearer: (req) => readBearer(req.headers.authorization, deps.verifier),
  };

  return async (req, response) => {
    const path = pathOf(req.url);
    const address = proxyaddr(req, deps.trust) ?? req.socket.remoteAddress ?? 'unknown';
    beginRequest(deps.logger, req, response, path, address);
    const res = response as ResponseWithLocals;
    deps.metrics.observeRequest(req, res, path);
    const facts: Partial<GraphQLFacts> = { draining: deps.drain.phase() === 'refusing' };
    // Requests refused while draining are not waited for: they are answered at once.
    if (!facts.draining) deps.drain.track(res);
    try {
      let refusal = await runGuards(headGuards, produce, req, res, facts);
      if (!refusal && deps.graphiql && wantsGraphiQL(req)) return sendGraphiQL(res);
      refusal ??= await runGuards(bodyGuards, produce, req, res, facts);
      if (refusal) return writeGraphQLRefusal(res, refusal);
      const { body, bearer } = facts as GraphQLFacts;
      // On res.locals itself: under Express, beginRequest copies into the locals Express made.
      if (bearer.kind === 'verified') localsOf(res).viewer = bearer.identity;
      await deps.route(req, res, 'text' in body ? body.text : null);
    } catch (error) {
      errorHandler(error, req, res);
    }
  };
}

/**
 * The shorter road to the same handler: a request for exactly `path` (any query string) goes to it
 * before Express sees it; every other one to `rest`. app.ts says why, with the figure measured.
 */
export function dispatchPath(path: string, handler: NodeHandler, rest: RequestListener): RequestListener {
  return (req, res) => {
    if (pathOf(req.url) === path) void handler(req, res);
    else rest(req, res);
  };
}
