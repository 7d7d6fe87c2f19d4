import { type HostileCase, type HttpCase, type SessionRef } from './shared.js';

/**
 * Placeholders the corpus runner replaces in header values: the id of an event of the signed-in user's
 * own call stream (a stream of another session than the anonymous one).
 */
export const USER_STREAM_EVENT_ID = '{{user-stream-event-id}}';

/** GET + Last-Event-ID (resuming a cut stream): malformed, unknown, huge, and another session's ids. */
export function resumptionCases(): HostileCase[] {
  const uuid = '6f1c9a4e-1d2b-4c3d-8e9f-0a1b2c3d4e5f';
  const ids = [
    '',
    ' ',
    'not-an-event-id',
    `${uuid}_1`,
    `${uuid}_1-0`,
    `${uuid}_99999999999999999999`,
    `${uuid}_1-99999999999999999999`,
    `${uuid}_-1`,
    `${uuid}`,
    `_1-0`,
    `${uuid.toUpperCase()}_1-0`,
    `${uuid}_1-0_1-0`,
    '../../etc/passwd_1-0',
    "' OR 1=1 --",
    '\u00e9\u00ff',
    `${'a'.repeat(36)}_1-0`,
    `${uuid}_${'9'.repeat(4000)}`,
    'x'.repeat(8000),
    'x'.repeat(20000),
    USER_STREAM_EVENT_ID,
  ];
  const resume = (name: string, lastEventId: string, session: SessionRef | undefined): HttpCase => ({
    kind: 'http',
    category: 'resumption',
    name,
    method: 'GET',
    path: '/mcp',
    headers: {
      accept: 'text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
    session,
  });
  return [
    ...ids.map((id, i) => resume(`Last-Event-ID #${i} ${JSON.stringify(id.slice(0, 40))}`, id, 'anonymous')),
    ...ids.map((id, i) => resume(`Last-Event-ID #${i} on the user's session`, id, 'user')),
    resume('Last-Event-ID without a session', `${uuid}_1-0`, undefined),
    resume(
      "another session's stream, its owner's session id without the token",
      USER_STREAM_EVENT_ID,
      'user-id-anonymous',
    ),
  ];
}
