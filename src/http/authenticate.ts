/**
 * Bearer authentication (docs/contract.md, Identity). `readBearer` is the one place a request's Authorization header
 * is parsed and verified; /graphql (its bearer guard, graphql-guards.ts) and /mcp each answer its outcome
 * in their own format.
 */
import type { IncomingMessage } from 'node:http';
import type { BearerVerifier } from '../auth/bearer.js';
import type { Identity } from '../auth/identity.js';
import { InvalidTokenError } from '../auth/tokens.js';

const BEARER = /^Bearer ([A-Za-z0-9\-_.~+/]+=*)$/i;
const MAX_HEADER_LENGTH = 4096;

export type BearerOutcome =
  { kind: 'absent' } | { kind: 'invalid'; reason: string } | { kind: 'verified'; identity: Identity };

/** Parses and verifies an Authorization header; anything but an InvalidTokenError is rethrown. */
export async function readBearer(
  header: string | undefined,
  verifier: BearerVerifier,
): Promise<BearerOutcome> {
  if (header === undefined) return { kind: 'absent' };
  const token = header.length <= MAX_HEADER_LENGTH ? BEARER.exec(header)?.[1] : undefined;
  if (!token) return { kind: 'invalid', reason: 'The Authorization header must be "Bearer <token>"' };
  try {
    return { kind: 'verified', identity: await verifier.verify(token) };
  } catch (error) {
    if (error instanceof InvalidTokenError) return { kind: 'invalid', reason: error.message };
    throw error;
  }
}

/** The request's bearer outcome, its Authorization header verified. */
export function bearerOf(req: IncomingMessage, verifier: BearerVerifier): Promise<BearerOutcome> {
  return readBearer(req.headers.authorization, verifier);
}
