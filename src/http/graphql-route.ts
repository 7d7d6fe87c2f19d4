/**
 * GraphQL over HTTP on Express: graphql-http's spec-compliant core, wired to the one executor, behind a
 * thin adapter of our own so that a failure answers with our JSON and logs instead of a bare 500.
 */
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import { createHandler, type OperationContext, type Request as GraphQLHttpRequest } from 'graphql-http';
import { createContext, type ContextDependencies } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import { localsOf } from './locals.js';

interface RequestContext {
  res: ExpressResponse;
}

export function graphqlRoute(executor: Executor, deps: ContextDependencies): RequestHandler {
  const handle = createHandler<ExpressRequest, RequestContext, OperationContext>({
    schema: executor.schema,
    parse: executor.parse,
    validate: executor.validate,
    execute: executor.execute,
    formatError: executor.formatError,
    context: (req) => {
      const { viewer, logger, requestId } = localsOf(req.context.res);
      // GraphQLContext is an interface without an index signature; graphql-http only passes it through.
      return createContext(deps, { viewer, logger, requestId }) as unknown as OperationContext;
    },
  });

  return async (req, res, next) => {
    const request: GraphQLHttpRequest<ExpressRequest, RequestContext> = {
      url: req.originalUrl,
      method: req.method,
      headers: req.headers,
      // The body was read (and size-bounded) by express.text; graphql-http parses it per the spec.
      body: typeof req.body === 'string' ? req.body : null,
      raw: req,
      context: { res },
    };
    try {
      const [body, init] = await handle(request);
      res.writeHead(init.status, init.statusText, init.headers as Record<string, string>).end(body);
    } catch (error) {
      next(error);
    }
  };
}
