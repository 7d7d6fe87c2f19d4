/**
 * The text block of a tool answer that carries errors (docs/errors.md, What a model reads). Most agent
 * frameworks (AI SDK's toModelOutput, OpenAI Agents, Mastra 0.x, LangChain) hand the model only the
 * text content and drop isError and structuredContent, so the text alone must say what happened and
 * what to do: each error's line starts with its classification and whether to retry (with the wait,
 * when known), names the argument at fault where there is one, and ends with the next step when the
 * message does not already say it:
 *
 *   NOT_FOUND (not retryable): no movie with id 99999 (argument "movieId"). Look the id up with searchMovies.
 *
 * The text is bounded whatever the errors: at most ERRORS_SPELLED_OUT lines, each message at most
 * MESSAGE_MAX_CHARS, then a count of the rest (all of them stay in structuredContent.errors).
 */
import type { ToolError } from './to-call-tool-result.js';

const ERRORS_SPELLED_OUT = 3;
/** Longer messages (a list of unknown ids, say) are cut here in the text; structuredContent keeps them. */
const MESSAGE_MAX_CHARS = 500;

/** The contract's NOT_FOUND message, for one id or (moviesByIds) several: `ids: 998, 999`. */
const NOT_FOUND_MESSAGE = /^Entity (\w+) not found for (ids?): (.+)$/;

/** `TvShow` → "TV show", `WatchlistItem` → "watch list entry": the entity as a sentence names it. */
const ENTITY_WORDS: Record<string, string> = { TvShow: 'TV show', WatchlistItem: 'watch list entry' };
const wordsOf = (entity: string) =>
  ENTITY_WORDS[entity] ?? entity.replace(/(?<=[a-z])(?=[A-Z])/g, ' ').toLowerCase();

/** Where an id the caller gave sits in the arguments (`subject.movieId`, `ids[1]`): every place it is. */
function pathOfValue(args: unknown, wanted: string, prefix = ''): string[] {
  if (args === null || typeof args !== 'object') return [];
  return Object.entries(args as Record<string, unknown>).flatMap(([key, value]) => {
    const path = Array.isArray(args) ? `${prefix}[${key}]` : prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string' || typeof value === 'number') return String(value) === wanted ? [path] : [];
    return pathOfValue(value, wanted, path);
  });
}

/** The argument path of a field an error names (`movieId` is `subject.movieId` in these arguments). */
function pathOfKey(args: unknown, key: string, prefix = ''): string[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [];
  return Object.entries(args as Record<string, unknown>).flatMap(([name, value]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [...(name === key ? [path] : []), ...pathOfKey(value, key, path)];
  });
}

/** The arguments at fault: the field the error names, else (NOT_FOUND) those holding the unknown ids. */
function argumentsAtFault(error: ToolError, args: Record<string, unknown> | undefined): string[] {
  // A confirmation's question names confirmationToken as where its answer goes, not as a fault.
  if (error.extensions?.confirmationToken !== undefined) return [];
  const field = error.extensions?.field;
  if (typeof field === 'string' && field) {
    if (!args || field.includes('.') || field in args) return [field];
    const paths = pathOfKey(args, field);
    return [paths.length === 1 ? paths[0]! : field];
  }
  const notFound = NOT_FOUND_MESSAGE.exec(error.message);
  if (error.classification !== 'NOT_FOUND' || !notFound || !args) return [];
  const paths = notFound[3]!.split(', ').map((id) => pathOfValue(args, id));
  // Named only when each unknown id sits in exactly one place.
  return paths.every((found) => found.length === 1) ? paths.map((found) => found[0]!) : [];
}

function retryOf(error: ToolError): string {
  // A confirmation's question is meant to be called again, with the token, once the user agrees:
  // "not retryable" there would tell the model to give up on the very call it is asked to repeat.
  if (error.extensions?.confirmationToken !== undefined) return 'needs confirmation';
  if (!error.retryable) return 'not retryable';
  const seconds = error.extensions?.retryAfterSeconds;
  return typeof seconds === 'number' ? `retryable after ${seconds} s` : 'retryable';
}

/** The message in a model's words: "no movie with id 99999" rather than the entity's class name. */
function messageOf(error: ToolError): string {
  const notFound = error.classification === 'NOT_FOUND' ? NOT_FOUND_MESSAGE.exec(error.message) : null;
  const what = notFound && wordsOf(notFound[1]!);
  const message = !notFound
    ? error.message
    : notFound[2] === 'id'
      ? `no ${what} with id ${notFound[3]!}`
      : `no ${what === 'TV show' ? what : what!.replace(/y$/, 'ie')}s with ids ${notFound[3]!}`;
  return message.length > MESSAGE_MAX_CHARS ? `${message.slice(0, MESSAGE_MAX_CHARS - 1)}…` : message;
}

/** What to do next, where the classification and message leave it open. */
function nextStep(error: ToolError, named: boolean): string | undefined {
  const extensions = error.extensions ?? {};
  switch (error.classification) {
    case 'NOT_FOUND':
      // A movie id given where an entry id belongs is the likely slip: say where entry ids come from.
      if (extensions.entityType === 'WatchlistItem')
        return 'Entry ids (not movie ids) are listed by myWatchlist; do not call again with the same one.';
      return extensions.entityType === 'Movie'
        ? 'Look the id up with searchMovies.'
        : 'Check the id; do not call again with the same one.';
    case 'BAD_REQUEST':
      // A duplicate is the call's goal already met: fixing the argument would add something else.
      if (extensions.constraint === 'unique')
        return 'It is there already: nothing was written; treat it as done.';
      return named ? 'Fix that argument, then call again.' : undefined;
    case 'UNAUTHORIZED':
      return 'Ask the user to sign in, then call again with their bearer token.';
    case 'FORBIDDEN': {
      const scopes = extensions.requiredScopes;
      if (Array.isArray(scopes) && scopes.length > 0)
        return `Ask the user to sign in again granting ${scopes.join(', ')}, then call again with the new token.`;
      if (typeof extensions.requiredRole === 'string')
        return `Only an account with the ${extensions.requiredRole} role may; do not call again.`;
      return undefined;
    }
    case 'TIMEOUT':
    case 'UNAVAILABLE':
    case 'RATE_LIMITED':
      return error.retryable ? undefined : 'Check the current state before calling again.';
    case 'INTERNAL_ERROR':
      return 'Tell the user, quoting the reference; the operator can look it up.';
  }
}

/** One error as a line a model can act on. */
export function toolErrorLine(error: ToolError, args?: Record<string, unknown>): string {
  const faults = argumentsAtFault(error, args).map((path) => `"${path}"`);
  const message = messageOf(error).replace(/[.\s]+$/, '');
  const step = nextStep(error, faults.length > 0);
  const argument =
    faults.length === 0 ? '' : ` (argument${faults.length > 1 ? 's' : ''} ${faults.join(', ')})`;
  return `${error.classification} (${retryOf(error)}): ${message}${argument}.${step ? ` ${step}` : ''}`;
}

/**
 * The lines for an answer's errors, each on its own line and ending with a newline (so the data's JSON
 * can follow); empty without errors.
 */
export function toolErrorText(errors: readonly ToolError[], args?: Record<string, unknown>): string {
  if (errors.length === 0) return '';
  const lines = errors.slice(0, ERRORS_SPELLED_OUT).map((error) => toolErrorLine(error, args));
  const rest = errors.length - ERRORS_SPELLED_OUT;
  if (rest > 0)
    lines.push(`…and ${rest} more error${rest === 1 ? '' : 's'} (all in structuredContent.errors).`);
  return `${lines.join('\n')}\n`;
}
