/**
 * What is wrong with one answer of the hostile corpus: a status of 500 or more, an HTML body, a leak
 * (stack frames, paths, SQL, library names), JSON-RPC -32603 or INTERNAL_ERROR, or an answer later than
 * a second. Nothing, for a connection the server closed because it did not speak HTTP.
 */
import type { HostileCase } from './hostile-cases.js';

/** The issue's bound on every answer. */
const ANSWER_WITHIN_MS = 1000;

/** Node may drop a connection it cannot parse (CONNECT with no handler, an HTTP/2 preface). */
export const RAW_UNANSWERED = 'closed without an answer';

export interface Answer {
  status: number;
  contentType: string;
  body: string;
  ms: number;
}

/** What counts as a leak. SQL and library names are looked for in error texts only, not in data. */
const LEAKS_ANYWHERE: Array<[string, RegExp]> = [
  ['a stack frame', /\bat (?:async )?[\w$.<>[\]]+ \(|\bat (?:file:\/\/|node:|\/)[^\s"]*:\d+:\d+/],
  ['a file path', /(?:\/work\/|\/home\/|\/usr\/lib|node_modules|file:\/\/|\b[\w-]+\.(?:ts|js|mjs|cjs):\d+)/],
  ['a stack overflow', /Maximum call stack/i],
];
const LEAKS_IN_ERRORS: Array<[string, RegExp]> = [
  [
    'SQL from an error',
    /syntax error at or near|SQLITE_|SqliteError|no such (?:table|column)|relation "|violates [\w ]*constraint|duplicate key value|invalid byte sequence|invalid input syntax|UNIQUE constraint failed|\bselect\b[\s\S]{0,80}\bfrom\b|\binsert into\b|\bupdate\b[\s\S]{0,40}\bset\b|\bdelete from\b/i,
  ],
  [
    'a library name',
    /kysely|better-sqlite3|node-postgres|\bpg\b|\bzod\b|\bajv\b|graphql-http|\bexpress\b|undici/i,
  ],
  ['a validator dump', /invalid_type|invalid_union|"expected"\s*:|instancePath|schemaPath/],
];

/** The JSON messages in a body: one JSON document, or the `data:` lines of an SSE stream. */
function messagesOf(body: string): unknown[] {
  const trimmed = body.trim();
  if (trimmed === '') return [];
  try {
    return [JSON.parse(trimmed)];
  } catch {
    const messages: unknown[] = [];
    for (const line of trimmed.split('\n')) {
      if (!line.startsWith('data:')) continue;
      try {
        messages.push(JSON.parse(line.slice(5)));
      } catch {
        // Not JSON: scanned as text below.
      }
    }
    return messages;
  }
}

/**
 * Whether a message classifies something as INTERNAL_ERROR (schemas that merely list the value, as a
 * tool's outputSchema does, do not count).
 */
function hasInternalError(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasInternalError);
  const record = value as Record<string, unknown>;
  if (record.classification === 'INTERNAL_ERROR') return true;
  return Object.values(record).some(hasInternalError);
}

/** Every text that describes an error: GraphQL errors, JSON-RPC errors, failed tool results. */
function errorTexts(body: string): string[] {
  const messages = messagesOf(body);
  if (messages.length === 0) return [body];
  const texts: string[] = [];
  const visit = (value: unknown) => {
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.errors)) texts.push(JSON.stringify(record.errors));
    if (record.error !== undefined) texts.push(JSON.stringify(record.error));
    const result = record.result as Record<string, unknown> | undefined;
    if (result?.isError) texts.push(JSON.stringify(result.content), JSON.stringify(result.structuredContent));
  };
  messages.forEach(visit);
  return texts;
}

/** Removes what the case itself sent, so quoting a rejected value back is not taken for a leak. */
function withoutEchoes(text: string, echoes: readonly string[] = []): string {
  let result = text;
  for (const echo of echoes) {
    if (echo.length < 2) continue;
    const escaped = JSON.stringify(echo).slice(1, -1);
    for (const form of [echo, escaped, echo.slice(0, 40), escaped.slice(0, 40)]) {
      if (form.length >= 2) result = result.split(form).join('');
    }
  }
  return result;
}

export function problemsOf(testCase: HostileCase, answer: Answer | string): string[] {
  // Closing a connection that does not speak HTTP is an answer; it is listed in the summary anyway.
  if (answer === RAW_UNANSWERED) return [];
  if (typeof answer === 'string') return [answer];
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (answer.ms > ANSWER_WITHIN_MS) problems.push(`answered in ${Math.round(answer.ms)} ms`);
  if (
    /text\/html/i.test(answer.contentType) ||
    /^\s*<(?:!doctype|html)|<\/?(?:html|body|pre)>/i.test(answer.body)
  )
    problems.push('an HTML body');
  const echoes = testCase.kind === 'http' ? testCase.echoes : undefined;
  const body = withoutEchoes(answer.body, echoes);
  for (const [what, pattern] of LEAKS_ANYWHERE) {
    const match = pattern.exec(body);
    if (match) problems.push(`leaks ${what}: ${match[0].slice(0, 60)}`);
  }
  for (const text of errorTexts(answer.body)) {
    const cleaned = withoutEchoes(text, echoes);
    for (const [what, pattern] of LEAKS_IN_ERRORS) {
      const match = pattern.exec(cleaned);
      if (match) problems.push(`leaks ${what}: ${match[0].slice(0, 60)}`);
    }
  }
  if (/"code"\s*:\s*-32603\b/.test(answer.body)) problems.push('JSON-RPC -32603');
  if (messagesOf(answer.body).some(hasInternalError)) problems.push('INTERNAL_ERROR');
  return [...new Set(problems)];
}
