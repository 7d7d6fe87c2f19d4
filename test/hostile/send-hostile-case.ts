/** Sends one case of the hostile corpus: over fetch, or as raw bytes on a socket. */
import { connect } from 'node:net';
import type { CorpusSessions } from './corpus-sessions.js';
import { type HostileCase, type HttpCase, type RawCase, USER_STREAM_EVENT_ID } from './hostile-cases.js';
import { RAW_UNANSWERED, type Answer } from './problems-of.js';

/** A request not answered by then is reported as hanging (and the run goes on). */
const GIVE_UP_MS = 5000;

/** The answer to a case, or why there was none. */
export function sendHostileCase(
  server: { url: string; port: number },
  testCase: HostileCase,
  sessions: CorpusSessions,
  userToken: string,
): Promise<Answer | string> {
  return testCase.kind === 'raw'
    ? sendRaw(server.port, testCase)
    : sendHttp(server.url, testCase, sessions, userToken);
}

async function sendHttp(
  url: string,
  testCase: HttpCase,
  sessions: CorpusSessions,
  userToken: string,
): Promise<Answer | string> {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(testCase.headers ?? {}).map(([name, value]) => [
      name,
      value === USER_STREAM_EVENT_ID ? sessions.userStreamEventId : value,
    ]),
  );
  if (testCase.session && headers['mcp-session-id'] === undefined) {
    headers['mcp-session-id'] = testCase.session === 'anonymous' ? sessions.anonymous : sessions.user;
    if (testCase.session === 'user' && headers.authorization === undefined)
      headers.authorization = `Bearer ${userToken}`;
  }
  const started = performance.now();
  try {
    const response = await fetch(`${url}${testCase.path}`, {
      method: testCase.method,
      headers,
      body: testCase.body,
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    const body = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body,
      ms: performance.now() - started,
    };
  } catch (error) {
    return `no answer within ${GIVE_UP_MS} ms or connection failed: ${(error as Error).message}`;
  }
}

/**
 * Writes the bytes and reads until the server closes (every well-formed raw case asks it to). A
 * half-close would make Node drop the request unanswered, so the socket stays open for writing.
 */
function sendRaw(port: number, testCase: RawCase): Promise<Answer | string> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let firstByteMs: number | undefined;
    const socket = connect(port, '127.0.0.1');
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      // Several answers may come back (pipelining): the worst status counts. A later status line follows
      // the previous body directly (no line break), so it is not anchored to a line start.
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) [A-Z]/g)].map((m) => Number(m[1]));
      if (statuses.length === 0) return resolve(RAW_UNANSWERED);
      const headerEnd = text.indexOf('\r\n\r\n');
      resolve({
        status: Math.max(...statuses),
        contentType: /^content-type:\s*(.*)$/im.exec(text)?.[1] ?? '',
        body: headerEnd >= 0 ? text.slice(headerEnd + 4) : text,
        ms: firstByteMs ?? performance.now() - started,
      });
    };
    // A connection left open after a complete answer is not a hang: what arrived is judged.
    const timer = setTimeout(() => {
      socket.destroy();
      if (chunks.length === 0) resolve(`no answer within ${GIVE_UP_MS} ms`);
      else finish();
    }, GIVE_UP_MS);
    socket.on('data', (chunk: Buffer) => {
      firstByteMs ??= performance.now() - started;
      chunks.push(chunk);
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(typeof testCase.bytes === 'string' ? Buffer.from(testCase.bytes, 'latin1') : testCase.bytes);
  });
}
