/**
 * Confirmation before a tool acts (docs/mcp.md, Confirmation before destructive tools): a tool annotated destructive (or set to `confirm:
 * "always"` in tools.json) asks the user first, decided by the user rather than by an argument the model
 * fills in, wherever the client makes that possible:
 * - a 2026-07-28 client that declares elicitation gets the input-required flow: the first answer embeds
 *   an elicitation and a signed requestState; the client asks its user and retries with the answer.
 *   Stateless by design, so any replica can take the retry.
 * - a call of a 2025 session whose client declared elicitation (form; an empty capability means form) is
 *   sent elicitation/create on its own stream and waits for the user's answer, which the client POSTs on
 *   the session (session-elicitation.ts: sessions are served by a fresh server per request and by any
 *   replica, so the question's id is ours and the answer is routed back through the shared state). Yes
 *   acts; no, cancel, no answer within MCP_ELICIT_TIMEOUT_SECONDS or the session's end act on nothing
 *   (FORBIDDEN, `confirmation: declined | unanswered`). A client that answers the question with an error
 *   (it declared elicitation and cannot show it), or whose stream cannot take it, never asked its user:
 *   it gets the two steps' token in the same answer, so the agent can still ask. Such a call must be
 *   served on the SDK path of a session, where the question can go out (`asksByElicitation`).
 * - every other client (stateless 2025 calls, whose answer could come back on no session, and
 *   clients without elicitation) gets two steps: the first answer is a BAD_REQUEST naming what would be
 *   acted on and carrying a short-lived confirmationToken; the second call, with that token and the
 *   same arguments, acts.
 *
 * Both the requestState and the token are HMAC-signed (the SDK's codec, keyed by a key derived from
 * JWT_SECRET, so every replica verifies what any replica issued), expire after 5 minutes and are bound
 * to the caller, the tool and its arguments by a hash. They are told apart by their kind, so a
 * requestState (asked, not yet answered) is never accepted as a token.
 */
import { createHash, createHmac } from 'node:crypto';
import {
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { canonicalJson } from '../canonical-json.js';
import type { CuratedOperation } from '../operations/load-operations.js';
import { CONFIRMATION_TOKEN_ARGUMENT } from '../operations/tool-arguments.js';
import type { ElicitationOutcome, ElicitationQuestion } from './session-elicitation.js';
import { toCallToolResult, toolFailure } from './to-call-tool-result.js';

const CONFIRMATION_TTL_SECONDS = 300;
/** The key of the embedded elicitation, and of the answer the retry carries. */
const CONFIRM_KEY = 'confirm';

interface SignedConfirmation {
  /** `asked`: a requestState (the question is out); `token`: a two-step confirmation token. */
  k: 'asked' | 'token';
  /** Hash of caller, tool and arguments. */
  c: string;
}

export interface ConfirmationSigner {
  sign(value: SignedConfirmation): Promise<string>;
  /** The signed value; throws 'malformed', 'mac' or 'expired' (the codec's reasons). */
  verify(signed: string): Promise<SignedConfirmation>;
}

export function createConfirmationSigner(
  secret: string,
  ttlSeconds = CONFIRMATION_TTL_SECONDS,
): ConfirmationSigner {
  // A key of its own, so a confirmation can never pass for a bearer token or the reverse.
  const key = createHmac('sha256', secret).update('moviedb-mcp/confirmation/v1').digest();
  const codec = createRequestStateCodec<SignedConfirmation>({ key, ttlSeconds });
  return {
    sign: (value) => codec.mint(value),
    // Without a bind callback the codec reads nothing from the context.
    verify: (signed) => codec.verify(signed, undefined as unknown as ServerContext),
  };
}

/** How this call's client can be asked, and what it brought back from an earlier round. */
export type ConfirmationChannel =
  | {
      kind: 'input-required';
      /** The verified requestState of the retry (the SDK ran the signer's verify on it). */
      state?: unknown;
      responses?: Record<string, unknown>;
    }
  /** A 2025 session whose client declared form elicitation: asked on the call's stream. */
  | { kind: 'elicitation'; ask(question: ElicitationQuestion): Promise<ElicitationOutcome> }
  | { kind: 'two-step' };

/**
 * Whether a client's capabilities declare form elicitation: an empty `elicitation` means form mode (the
 * spec's backwards-compatible default).
 */
export function declaresFormElicitation(capabilities: Record<string, unknown> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

/**
 * Whether this call of a 2025 session is asked by elicitation: a tool that asks first, from a client that
 * declared elicitation. Such a call must be served where its question can go out and its answer come
 * back: the SDK path of mcp-route.ts's sessions (serve), never a lean path that answers at once.
 */
export function asksByElicitation(
  operation: Pick<CuratedOperation, 'confirm'> | undefined,
  clientCapabilities: Record<string, unknown> | undefined,
): boolean {
  return !!operation?.confirm && declaresFormElicitation(clientCapabilities);
}

interface ConfirmationRequest {
  operation: CuratedOperation;
  variables: Record<string, unknown>;
  confirmationToken?: string;
  /** The caller: the subject, or for anonymous callers the client address. */
  principal: string;
  /** Whether this caller may call the tool at all: if not, execution answers why, without asking anyone. */
  mayCall: boolean;
  channel: ConfirmationChannel;
  /** Runs the tool's preview query as the caller. */
  runPreview(): Promise<ExecutionResult>;
}

type ConfirmationDecision =
  | { kind: 'proceed' }
  /** `outcome` for the audit line, when the result's classification does not say it. */
  | { kind: 'answer'; result: CallToolResult; outcome?: string }
  | { kind: 'ask'; result: InputRequiredResult };

const REQUESTED_SCHEMA = {
  type: 'object' as const,
  properties: {
    confirm: { type: 'boolean' as const, title: 'Go ahead', description: 'Tick to let the tool act.' },
  },
  required: ['confirm'],
};

export async function confirmCall(
  signer: ConfirmationSigner,
  request: ConfirmationRequest,
): Promise<ConfirmationDecision> {
  const { operation, channel } = request;
  // A caller the operation refuses anyway is answered by the operation itself (UNAUTHORIZED, FORBIDDEN).
  if (!operation.confirm || !request.mayCall) return { kind: 'proceed' };
  const callHash = createHash('sha256')
    .update(canonicalJson([request.principal, operation.toolName, request.variables]))
    .digest('base64url');

  if (request.confirmationToken !== undefined) {
    const problem = await tokenProblem(signer, request.confirmationToken, callHash);
    if (!problem) return { kind: 'proceed' };
    return {
      kind: 'answer',
      result: toolFailure('BAD_REQUEST', `The confirmationToken ${problem}`, {
        field: CONFIRMATION_TOKEN_ARGUMENT,
      }),
    };
  }

  if (channel.kind === 'input-required' && isAsked(channel.state, callHash)) {
    const answer = inputResponse(channel.responses, CONFIRM_KEY);
    if (answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.confirm === true)
      return { kind: 'proceed' };
    if (answer.kind === 'elicit') return notConfirmed(operation, 'declined');
  }

  const preview = operation.preview ? await request.runPreview() : undefined;
  const errors = preview?.errors ?? [];
  // What it would act on cannot be shown (not found, not valid, a deadline…): that answer, not the act.
  // Without the scope to read it (a token holding only the write scope), the question names the arguments.
  if (errors.length > 0 && !errors.every((e) => e.extensions?.classification === 'FORBIDDEN')) {
    return {
      kind: 'answer',
      result: toCallToolResult(
        inToolTerms(preview!, operation.preview!.toolArgumentOf),
        operation.preview!.rootKey,
        false,
        undefined,
        request.variables,
      ),
    };
  }
  const target = errors.length > 0 ? undefined : (preview?.data?.[operation.preview!.rootKey] ?? undefined);
  const what = describe(target, request.variables);

  const question = `${operation.tool.title ?? operation.toolName}: ${what}. Go ahead?`;
  // Set when the client declared elicitation but could not ask: the two steps say so.
  let unaskable = false;
  if (channel.kind === 'elicitation') {
    const outcome = await channel.ask({ message: question, requestedSchema: REQUESTED_SCHEMA });
    // An error answer (a client that declares elicitation without a handler, as Mastra 0.x does) or a
    // question that could not go out: the user was never asked, so the agent gets the token to ask.
    if ('result' in outcome) {
      const { action, content } = outcome.result as { action?: unknown; content?: { confirm?: unknown } };
      if (action === 'accept' && content?.confirm === true) return { kind: 'proceed' };
      return notConfirmed(operation, 'declined');
    }
    if ('unanswered' in outcome && outcome.unanswered !== 'unsent')
      return notConfirmed(operation, outcome.unanswered);
    unaskable = true;
  }
  if (channel.kind === 'input-required') {
    return {
      kind: 'ask',
      result: inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({
            mode: 'form',
            message: question,
            requestedSchema: REQUESTED_SCHEMA,
          }),
        },
        requestState: await signer.sign({ k: 'asked', c: callHash }),
      }),
    };
  }
  const token = await signer.sign({ k: 'token', c: callHash });
  const message =
    `Nothing done yet: ${operation.toolName} asks the user first` +
    (unaskable ? ' (the client could not show the question)' : '') +
    `. It would act on ${what}. ` +
    `Ask the user; if they agree, call ` +
    `${operation.toolName} again with the same arguments plus "${CONFIRMATION_TOKEN_ARGUMENT}": "${token}" ` +
    `(valid ${CONFIRMATION_TTL_SECONDS / 60} minutes).`;
  return {
    kind: 'answer',
    outcome: 'CONFIRMATION_REQUIRED',
    result: toolFailure('BAD_REQUEST', message, {
      field: CONFIRMATION_TOKEN_ARGUMENT,
      confirmationToken: token,
      expiresAt: new Date(Date.now() + CONFIRMATION_TTL_SECONDS * 1000).toISOString(),
      ...(target !== undefined ? { target } : {}),
      ...(unaskable ? { elicitation: 'failed' } : {}),
    }),
  };
}

/** Why a tool did not act, for a tool named `tool`. */
const NOT_CONFIRMED = {
  declined: (tool: string) => `The user did not confirm ${tool}`,
  timeout: (tool: string) => `The user did not answer whether to run ${tool} in time`,
  'session-ended': (tool: string) => `The session ended before the user answered whether to run ${tool}`,
};

/** The user said no, or could not say yes: nothing was done, and the agent is told not to insist. */
function notConfirmed(operation: CuratedOperation, why: keyof typeof NOT_CONFIRMED): ConfirmationDecision {
  const confirmation = why === 'declined' ? 'declined' : 'unanswered';
  return {
    kind: 'answer',
    outcome: confirmation === 'declined' ? 'DECLINED' : 'UNCONFIRMED',
    result: toolFailure(
      'FORBIDDEN',
      `${NOT_CONFIRMED[why](operation.toolName)}: nothing was done. Call it again only if the user asks.`,
      { confirmation },
    ),
  };
}

async function tokenProblem(signer: ConfirmationSigner, token: string, callHash: string) {
  let signed: SignedConfirmation;
  try {
    signed = await signer.verify(token);
  } catch (error) {
    return (error as Error).message === 'expired'
      ? 'has expired: call again without it to get a new one'
      : 'is not one this server issued: call again without it to get one';
  }
  if (signed.k !== 'token') return 'is not one this server issued: call again without it to get one';
  if (signed.c !== callHash)
    return 'was issued for another call (other arguments, another tool or another user): call again without it to get one for this call';
  return undefined;
}

/**
 * The preview's errors in the tool's terms: the caller never saw the preview's own argument names, so an
 * error about one (`watchlistItem(id: $itemId)` refusing `id`) names the tool argument it read, in its
 * field and in the message (parseId's "Invalid id for id: …").
 */
function inToolTerms(result: ExecutionResult, toolArgumentOf: ReadonlyMap<string, string>): ExecutionResult {
  if (!result.errors || toolArgumentOf.size === 0) return result;
  const errors = result.errors.map((error) => {
    const field = error.extensions?.field;
    const argument = typeof field === 'string' ? toolArgumentOf.get(field) : undefined;
    if (!argument) return error;
    return new GraphQLError(error.message.replace(`for ${field}:`, `for ${argument}:`), {
      path: error.path,
      extensions: { ...error.extensions, field: argument },
    });
  });
  return { ...result, errors };
}

function isAsked(state: unknown, callHash: string): boolean {
  const signed = state as Partial<SignedConfirmation> | undefined;
  return signed?.k === 'asked' && signed.c === callHash;
}

/** `"Se7en" (1995)`: a title and year found in the preview, else the arguments. */
function describe(target: unknown, variables: Record<string, unknown>): string {
  const titled = findTitled(target);
  if (!titled) return canonicalJson(variables);
  const year = titled.releaseYear ?? titled.startYear;
  return `"${String(titled.title)}"${typeof year === 'number' ? ` (${year})` : ''}`;
}

function findTitled(value: unknown, depth = 0): Record<string, unknown> | undefined {
  if (!value || typeof value !== 'object' || depth > 3) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.title === 'string') return record;
  for (const child of Object.values(record)) {
    const found = findTitled(child, depth + 1);
    if (found) return found;
  }
  return undefined;
}
