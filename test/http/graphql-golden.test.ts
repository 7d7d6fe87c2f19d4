/**
 * The /graphql golden table: every request of graphql-cases.ts must get the status, headers (all but
 * Date) and body graphql-golden.json holds, from the one handler, with tracing off and on (a traced
 * server runs the same path). Every request is begun exactly once: one access line per request, naming
 * the x-request-id the answer carries, and one server span per request when tracing is on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGoldenTable, serverSpans, useGoldenServer } from '../helpers/golden-table.js';
import { holdRequest } from '../helpers/raw-http.js';
import { dialects, startTestServer } from '../helpers/server.js';
import { expiredToken, graphqlCases, sendGolden, type GoldenAnswer } from './golden/graphql-cases.js';

const golden = JSON.parse(
  readFileSync(path.join(import.meta.dirname, 'golden/graphql-golden.json'), 'utf8'),
) as Record<string, GoldenAnswer>;

const graphqlServerSpans = serverSpans((path) => path.startsWith('/graphql'));

describe.each(dialects)('the /graphql golden table on %s', (dialect) => {
  describe.each(['off', 'on'])('with tracing %s', (tracing) => {
    const run = useGoldenServer(dialect, tracing === 'on');

    it('answers every request as the table says, each begun once with the id it answers with', async () => {
      const { server, logs, receiver } = run;
      const cases = graphqlCases(run.token, await expiredToken());
      expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(golden).sort());
      await expectGoldenTable({
        cases,
        expected: (request) => golden[request.name],
        send: (request) => sendGolden(server.url, request),
        logs,
        tracing: receiver && {
          receiver,
          serverSpans: graphqlServerSpans,
          // The sign-in's own span is counted before the table's.
          before: graphqlServerSpans(await receiver.waitFor((all) => graphqlServerSpans(all).length >= 1))
            .length,
          traced: () => true,
        },
      });
    });
  });

  it("while draining, a new request is the registry's 503 and one already received is answered", async () => {
    const server = await startTestServer(dialect, { env: { SHUTDOWN_GRACE_MS: '5000' } });
    const query = JSON.stringify({ query: '{ movie(id: "1") { title } }' });
    const held = await holdRequest(`${server.url}/graphql`, {
      headers: { 'content-type': 'application/json' },
      body: query,
    });
    const closing = server.stop();
    const request = {
      name: 'draining',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: query,
    };
    let refused: GoldenAnswer | undefined;
    await expect
      .poll(async () => (refused = (await sendGolden(server.url, request)).answer).status)
      .toBe(503);
    const body = JSON.stringify({
      errors: [
        {
          message: 'The server is shutting down; retry the request (another instance will take it)',
          extensions: { retryAfterSeconds: 5, classification: 'UNAVAILABLE' },
        },
      ],
    });
    expect(refused).toEqual({
      status: 503,
      headers: {
        'x-request-id': 'REQUEST-ID',
        'retry-after': '5',
        connection: 'close',
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    expect((await held.finish()).status).toBe(200);
    await closing;
  });
});
