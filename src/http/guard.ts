/**
 * A guard: a pure function of node's request and of what earlier steps produced (the facts: the body
 * read, the bearer token verified), returning a refusal or nothing. An endpoint's guards are an ordered
 * list (data a test reads); `runGuards` produces each fact a guard needs once, just before the first
 * guard that needs it, so a refused request reads no more than it must (a foreign Host is refused before
 * its body is read, a body error before its token is verified).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Refusal } from '../transport-refusals.js';

export interface Guard<Facts> {
  /** The guard's name in its endpoint's list (tests and docs read the order by it). */
  name: string;
  /** The fact this guard judges; produced before it runs. */
  needs?: keyof Facts;
  check(req: IncomingMessage, facts: Partial<Facts>): Refusal | undefined;
}

/**
 * How each fact is produced (asynchronously: a body read, a token verified), from the request and the
 * facts produced before it (the JSON-RPC message from the body); a rejection is a 500.
 */
export type FactProducers<Facts> = {
  [K in keyof Facts]: (
    req: IncomingMessage,
    res: ServerResponse,
    facts: Partial<Facts>,
  ) => Promise<Facts[K]> | Facts[K];
};

/** Runs the guards in order; the first refusal, or undefined with every fact the guards needed. */
export async function runGuards<Facts>(
  guards: readonly Guard<Facts>[],
  produce: FactProducers<Facts>,
  req: IncomingMessage,
  res: ServerResponse,
  facts: Partial<Facts>,
): Promise<Refusal | undefined> {
  for (const guard of guards) {
    const { needs } = guard;
    if (needs !== undefined && !(needs in facts)) facts[needs] = await produce[needs](req, res, facts);
    const refusal = guard.check(req, facts);
    if (refusal) return refusal;
  }
  return undefined;
}
