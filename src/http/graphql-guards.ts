/**
 * The /graphql guards, in the order the handler runs them: the drain gate, the Host (DNS rebinding), the
 * body (read bounded and decoded: every reading error is the client's), the bearer token (absent is
 * anonymous; present and not valid is a 401, never a silent downgrade). graphql-http's core judges what
 * follows (method, Accept, media type, the document) as the GraphQL over HTTP spec says. GraphiQL's page
 * is answered after the guards that read only headers (`GRAPHIQL_AFTER`), before the body is read.
 */
import type { BearerOutcome } from './authenticate.js';
import type { HostCheck } from './allowed-hosts.js';
import type { Guard } from './guard.js';
import { refusalOf, type RefusalCode } from '../transport-refusals.js';

/** A body-reading error, typed as body-parser types its own (`entity.too.large`, `encoding.mismatch`…). */
interface BodyError {
  type?: string;
  status?: number;
}

/** The body as read: its text (null when the request has none), or why it could not be read. */
export type BodyOutcome = { text: string | null } | { error: BodyError };

export interface GraphQLFacts {
  /** The server is draining: new requests are refused. */
  draining: boolean;
  body: BodyOutcome;
  bearer: BearerOutcome;
}

const BODY_REFUSALS: Record<string, RefusalCode> = {
  'entity.too.large': 'graphql.body-too-large',
  'entity.parse.failed': 'graphql.body-not-json',
  'charset.unsupported': 'graphql.charset-unsupported',
  'encoding.unsupported': 'graphql.encoding-unsupported',
  'encoding.mismatch': 'graphql.encoding-mismatch',
  'request.aborted': 'graphql.request-aborted',
};

export const GRAPHIQL_AFTER = 'host';

export function graphqlGuards(hostCheck: HostCheck): readonly Guard<GraphQLFacts>[] {
  return [
    {
      name: 'draining',
      needs: 'draining',
      check: (_req, { draining }) => (draining ? refusalOf('graphql.draining') : undefined),
    },
    {
      name: 'host',
      check: (req) => {
        const host = req.headers.host ?? '';
        return hostCheck.allows(host) ? undefined : refusalOf('graphql.host-not-allowed', { host });
      },
    },
    {
      name: 'body',
      needs: 'body',
      check: (_req, { body }) => {
        if (!body || !('error' in body)) return undefined;
        const code = body.error.type === undefined ? undefined : BODY_REFUSALS[body.error.type];
        return refusalOf(code ?? 'graphql.request-unprocessable');
      },
    },
    {
      name: 'bearer',
      needs: 'bearer',
      check: (_req, { bearer }) =>
        bearer?.kind === 'invalid'
          ? refusalOf('graphql.token-invalid', { reason: bearer.reason })
          : undefined,
    },
  ];
}
