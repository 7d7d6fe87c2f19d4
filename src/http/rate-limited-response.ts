/**
 * GraphQL over HTTP for an operation refused by a rate limit: graphql-http would answer 200 (or 400)
 * with the error in the body; a client, proxy or load balancer needs RFC 9110's HTTP 429 with
 * Retry-After (RFC 6585 section 4) to back off. The body stays the classified GraphQL error.
 */
import type { ExecutionResult } from 'graphql';
import type { Response as GraphQLHttpResponse } from 'graphql-http';

/** A 429 response when a limit refused the whole operation (no data came back); undefined otherwise. */
export function rateLimitedResponse(
  result: ExecutionResult,
  contentType: string,
): GraphQLHttpResponse | undefined {
  // Partial data stays a 200: what did run must still reach the client.
  if (result.data) return undefined;
  const waits = (result.errors ?? [])
    .filter((error) => error.extensions?.classification === 'RATE_LIMITED')
    .map((error) => Number(error.extensions?.retryAfterSeconds) || 1);
  if (waits.length === 0) return undefined;
  return [
    JSON.stringify(result),
    {
      status: 429,
      statusText: 'Too Many Requests',
      headers: { 'content-type': contentType, 'retry-after': String(Math.max(...waits)) },
    },
  ];
}
